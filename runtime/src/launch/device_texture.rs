//! Textures that live on the device: a CUDA mipmapped array filled once from host texels
//! ([`DeviceTexture::upload`]) and bound to any number of launches, with the texture and
//! surface objects the launches need made once per sampler state and kept with it.
//!
//! Both launch paths use it: [`super::CudaModule::launch_full`] uploads its host textures for
//! one launch and reads storage textures back; [`super::CudaModule::launch_on`] binds the
//! caller's (`DeviceArg::texture`, `DeviceArg::storage_texture`).

use super::textures::{array_descriptor, level_copy_extent, texture_descriptor};
use super::LaunchError;
use crate::texture::{SamplerDesc, TextureData};
use cudarc::driver::{sys, CudaContext};
use std::sync::{Arc, Mutex};

fn check(r: sys::CUresult, op: &str) -> Result<(), LaunchError> {
    if r == sys::CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(LaunchError::Driver { op: op.to_string(), error: format!("{r:?}") })
    }
}

/// The objects made for one texture so far.
#[derive(Default)]
struct Objects {
    /// Texture objects by the sampler state they carry (`None`: fetches and queries).
    textures: Vec<(Option<SamplerDesc>, sys::CUtexObject)>,
    surface: Option<sys::CUsurfObject>,
}

/// A texture on the device: its shape and format, a CUDA mipmapped array holding every
/// level, and the objects made over it. Dropping it waits for the context's queued work
/// (a kernel may still read it), then frees everything.
pub struct DeviceTexture {
    ctx: Arc<CudaContext>,
    array: sys::CUmipmappedArray,
    /// The shape and format (`data` is empty).
    shape: TextureData,
    storage: bool,
    objects: Mutex<Objects>,
}

// SAFETY: the handles are plain driver handles, valid in any thread that binds the context
// (every use below binds it first); the objects are behind a mutex.
unsafe impl Send for DeviceTexture {}
// SAFETY: as for `Send`; `&self` methods only create objects under the mutex or read texels.
unsafe impl Sync for DeviceTexture {}

impl std::fmt::Debug for DeviceTexture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceTexture")
            .field("dim", &self.shape.dim)
            .field("format", &self.shape.format)
            .field("extent", &[self.shape.width, self.shape.height, self.shape.depth_or_layers])
            .field("mip_levels", &self.shape.mip_levels)
            .field("storage", &self.storage)
            .finish()
    }
}

/// A `cuMemcpy3D` between host bytes and level `level` of an array (`to_array`: upload).
fn copy_level(
    arr: sys::CUarray,
    t: &TextureData,
    level: u32,
    host: *mut u8,
    to_array: bool,
) -> Result<(), LaunchError> {
    let (w, h, d) = level_copy_extent(t, level);
    // SAFETY: an all-zero CUDA_MEMCPY3D is the documented starting point (null pointers,
    // zero offsets); the fields that matter are set below.
    let mut c: sys::CUDA_MEMCPY3D = unsafe { std::mem::zeroed() };
    if to_array {
        c.srcMemoryType = sys::CUmemorytype::CU_MEMORYTYPE_HOST;
        c.srcHost = host as *const std::ffi::c_void;
        c.srcPitch = w;
        c.srcHeight = h;
        c.dstMemoryType = sys::CUmemorytype::CU_MEMORYTYPE_ARRAY;
        c.dstArray = arr;
    } else {
        c.srcMemoryType = sys::CUmemorytype::CU_MEMORYTYPE_ARRAY;
        c.srcArray = arr;
        c.dstMemoryType = sys::CUmemorytype::CU_MEMORYTYPE_HOST;
        c.dstHost = host as *mut std::ffi::c_void;
        c.dstPitch = w;
        c.dstHeight = h;
    }
    c.WidthInBytes = w;
    c.Height = h;
    c.Depth = d;
    // SAFETY: `host` points at this level's `w * h * d` bytes inside the texture's data
    // (TextureData's layout: levels tightly packed), and `arr` is that level's array.
    check(unsafe { sys::cuMemcpy3D_v2(&c) }, "copying texture texels")
}

fn level_array(h: sys::CUmipmappedArray, level: u32) -> Result<sys::CUarray, LaunchError> {
    let mut arr: sys::CUarray = std::ptr::null_mut();
    // SAFETY: `h` is a live mipmapped array with more than `level` levels.
    check(unsafe { sys::cuMipmappedArrayGetLevel(&mut arr, h, level) }, "reading a mip level")?;
    Ok(arr)
}

/// `t` without its texels.
fn shape_of(t: &TextureData) -> TextureData {
    TextureData {
        dim: t.dim,
        format: t.format,
        width: t.width,
        height: t.height,
        depth_or_layers: t.depth_or_layers,
        mip_levels: t.mip_levels,
        data: Vec::new(),
    }
}

fn bind(ctx: &Arc<CudaContext>) -> Result<(), LaunchError> {
    ctx.bind_to_thread().map_err(super::driver("binding the context"))
}

impl DeviceTexture {
    /// Creates the array for `t`'s shape and format and copies every level of its texels
    /// (synchronously). `storage`: the array also backs surface objects, as a
    /// `texture_storage_*` binding needs.
    pub fn upload(
        ctx: &Arc<CudaContext>,
        t: &TextureData,
        storage: bool,
    ) -> Result<DeviceTexture, LaunchError> {
        bind(ctx)?;
        let desc = array_descriptor(t, storage)
            .map_err(|e| LaunchError::Driver { op: "describing a texture".into(), error: e })?;
        let mut h: sys::CUmipmappedArray = std::ptr::null_mut();
        // SAFETY: out-pointer and descriptor are valid for the call.
        check(
            unsafe { sys::cuMipmappedArrayCreate(&mut h, &desc, t.mip_levels) },
            "creating a CUDA array",
        )?;
        let shape = shape_of(t);
        let tex =
            DeviceTexture { ctx: ctx.clone(), array: h, shape, storage, objects: Mutex::default() };
        let mut data = t.data.clone();
        for level in 0..t.mip_levels {
            let arr = level_array(h, level)?;
            let off = t.level_offset(level) as usize;
            let ptr = data.get_mut(off..).map_or(std::ptr::null_mut(), |s| s.as_mut_ptr());
            copy_level(arr, t, level, ptr, true)?;
        }
        Ok(tex)
    }

    /// Copies every level back into `t`, after the context's queued work (kernels writing
    /// the texture) has finished. `t` must have the texture's shape and format.
    pub fn download(&self, t: &mut TextureData) -> Result<(), LaunchError> {
        let (a, b) = (shape_of(t), &self.shape);
        let same = (a.dim, a.format, a.width, a.height, a.depth_or_layers, a.mip_levels)
            == (b.dim, b.format, b.width, b.height, b.depth_or_layers, b.mip_levels);
        if !same || t.data.len() as u64 != t.level_offset(t.mip_levels) {
            return Err(LaunchError::Driver {
                op: "reading a texture back".into(),
                error: "the host texture has another shape or format".into(),
            });
        }
        bind(&self.ctx)?;
        self.ctx
            .synchronize()
            .map_err(|e| LaunchError::Execution(crate::cuda::describe_error(&e)))?;
        for level in 0..t.mip_levels {
            let arr = level_array(self.array, level)?;
            let off = t.level_offset(level) as usize;
            let ptr = t.data.get_mut(off..).map_or(std::ptr::null_mut(), |s| s.as_mut_ptr());
            copy_level(arr, &self.shape, level, ptr, false)?;
        }
        Ok(())
    }

    /// Whether it was uploaded for storage-texture (surface) use.
    pub fn is_storage(&self) -> bool {
        self.storage
    }

    /// Its shape and format (no texels).
    pub fn shape(&self) -> &TextureData {
        &self.shape
    }

    /// A texture object over every level with `sampler`'s state (`None`: point filtered,
    /// for fetches and queries), made on first use and kept.
    pub(crate) fn texture_object(&self, sampler: Option<&SamplerDesc>) -> Result<u64, LaunchError> {
        let mut objects = self.objects.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, o)) = objects.textures.iter().find(|(s, _)| s.as_ref() == sampler) {
            return Ok(*o);
        }
        bind(&self.ctx)?;
        // SAFETY: all-zero is a valid resource descriptor to fill in (flags must be 0).
        let mut res: sys::CUDA_RESOURCE_DESC = unsafe { std::mem::zeroed() };
        res.resType = sys::CUresourcetype::CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
        res.res.mipmap =
            sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_2 { hMipmappedArray: self.array };
        let desc = texture_descriptor(self.shape.format, sampler);
        let mut obj: sys::CUtexObject = 0;
        // SAFETY: valid descriptors and out-pointer; no resource view.
        check(
            unsafe { sys::cuTexObjectCreate(&mut obj, &res, &desc, std::ptr::null()) },
            "creating a texture object",
        )?;
        objects.textures.push((sampler.copied(), obj));
        Ok(obj)
    }

    /// The surface object over level 0, made on first use and kept.
    pub(crate) fn surface_object(&self) -> Result<u64, LaunchError> {
        let mut objects = self.objects.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(o) = objects.surface {
            return Ok(o);
        }
        bind(&self.ctx)?;
        let arr = level_array(self.array, 0)?;
        // SAFETY: as in `texture_object`.
        let mut res: sys::CUDA_RESOURCE_DESC = unsafe { std::mem::zeroed() };
        res.resType = sys::CUresourcetype::CU_RESOURCE_TYPE_ARRAY;
        res.res.array = sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_1 { hArray: arr };
        let mut obj: sys::CUsurfObject = 0;
        // SAFETY: valid descriptor (an array created with SURFACE_LDST) and out-pointer.
        check(unsafe { sys::cuSurfObjectCreate(&mut obj, &res) }, "creating a surface object")?;
        objects.surface = Some(obj);
        Ok(obj)
    }
}

impl Drop for DeviceTexture {
    fn drop(&mut self) {
        // Queued kernels may still read the array: wait for them. Errors while tearing down
        // are ignored (nothing can be done about them here).
        let _ = self.ctx.bind_to_thread();
        let _ = self.ctx.synchronize();
        let objects = self.objects.get_mut().unwrap_or_else(|e| e.into_inner());
        // SAFETY: each handle was created by this texture and is destroyed once, after the
        // work that could use it has finished.
        unsafe {
            for &(_, t) in &objects.textures {
                let _ = sys::cuTexObjectDestroy(t);
            }
            if let Some(s) = objects.surface {
                let _ = sys::cuSurfObjectDestroy(s);
            }
            let _ = sys::cuMipmappedArrayDestroy(self.array);
        }
    }
}
