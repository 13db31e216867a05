//! Textures and samplers for the lavapipe runner: wgpu textures created and filled from
//! [`TextureData`] (every level, every layer), views of the binding's dimension, samplers
//! from [`SamplerDesc`], bind-group layout entries matching the shader's declarations, and
//! the read-back of storage textures after the dispatch.
//!
//! WebGPU does not allow copies into `depth32float`, so depth textures are filled by a render
//! pass per level and layer whose fragment shader writes `frag_depth` from a storage buffer
//! of the texels (depth values are clamped to [0, 1] on the way, as any depth attachment
//! clamps them).

use crate::texture::{
    AddressMode, BorderColor, CompareFn, Filter, HandleBinding, HandleKind, SamplerDesc, TexDim,
    TexelFormat, TextureBindings, TextureData,
};
use dianran_frontend::ir::ImageClass;

/// The wgpu format of a texel format.
pub(crate) fn wgpu_format(f: TexelFormat) -> Option<wgpu::TextureFormat> {
    use wgpu::TextureFormat as W;
    use TexelFormat as T;
    Some(match f {
        T::R8Unorm => W::R8Unorm,
        T::R8Snorm => W::R8Snorm,
        T::R8Uint => W::R8Uint,
        T::R8Sint => W::R8Sint,
        T::R16Uint => W::R16Uint,
        T::R16Sint => W::R16Sint,
        T::R16Float => W::R16Float,
        T::Rg8Unorm => W::Rg8Unorm,
        T::Rg8Snorm => W::Rg8Snorm,
        T::Rg8Uint => W::Rg8Uint,
        T::Rg8Sint => W::Rg8Sint,
        T::R32Uint => W::R32Uint,
        T::R32Sint => W::R32Sint,
        T::R32Float => W::R32Float,
        T::Rg16Uint => W::Rg16Uint,
        T::Rg16Sint => W::Rg16Sint,
        T::Rg16Float => W::Rg16Float,
        T::Rgba8Unorm => W::Rgba8Unorm,
        T::Rgba8Snorm => W::Rgba8Snorm,
        T::Rgba8Uint => W::Rgba8Uint,
        T::Rgba8Sint => W::Rgba8Sint,
        T::Rg32Uint => W::Rg32Uint,
        T::Rg32Sint => W::Rg32Sint,
        T::Rg32Float => W::Rg32Float,
        T::Rgba16Uint => W::Rgba16Uint,
        T::Rgba16Sint => W::Rgba16Sint,
        T::Rgba16Float => W::Rgba16Float,
        T::Rgba32Uint => W::Rgba32Uint,
        T::Rgba32Sint => W::Rgba32Sint,
        T::Rgba32Float => W::Rgba32Float,
        T::R16Unorm => W::R16Unorm,
        T::R16Snorm => W::R16Snorm,
        T::Rg16Unorm => W::Rg16Unorm,
        T::Rg16Snorm => W::Rg16Snorm,
        T::Rgba16Unorm => W::Rgba16Unorm,
        T::Rgba16Snorm => W::Rgba16Snorm,
        T::Depth32Float => W::Depth32Float,
    })
}

fn view_dim(d: TexDim) -> wgpu::TextureViewDimension {
    match d {
        TexDim::D1 => wgpu::TextureViewDimension::D1,
        TexDim::D2 => wgpu::TextureViewDimension::D2,
        TexDim::D2Array => wgpu::TextureViewDimension::D2Array,
        TexDim::D3 => wgpu::TextureViewDimension::D3,
        TexDim::Cube => wgpu::TextureViewDimension::Cube,
        TexDim::CubeArray => wgpu::TextureViewDimension::CubeArray,
    }
}

/// Why these handles cannot run on lavapipe, if they cannot.
pub(crate) fn check(handles: &[HandleBinding], tex: &TextureBindings) -> Result<(), String> {
    for h in handles {
        let key = (h.group, h.binding);
        match h.kind {
            HandleKind::Texture { .. } => {
                tex.textures.get(&key).ok_or_else(|| format!("missing texture '{}'", h.name))?;
            }
            HandleKind::Sampler { .. } => {
                tex.samplers.get(&key).ok_or_else(|| format!("missing sampler '{}'", h.name))?;
            }
        }
    }
    Ok(())
}

/// The bind-group layout entry of a handle, matching its WGSL declaration and bound data.
pub(crate) fn layout_entry(
    h: &HandleBinding,
    tex: &TextureBindings,
    float32_filterable: bool,
) -> wgpu::BindGroupLayoutEntry {
    let key = (h.group, h.binding);
    let ty = match h.kind {
        HandleKind::Texture { dim, class } => {
            let format = tex.textures.get(&key).map(|t| t.format);
            match class {
                ImageClass::Storage { access, .. } => {
                    let load = access.contains(naga::StorageAccess::LOAD);
                    let store = access.contains(naga::StorageAccess::STORE);
                    wgpu::BindingType::StorageTexture {
                        access: match (load, store) {
                            (true, true) => wgpu::StorageTextureAccess::ReadWrite,
                            (true, false) => wgpu::StorageTextureAccess::ReadOnly,
                            _ => wgpu::StorageTextureAccess::WriteOnly,
                        },
                        format: format
                            .and_then(wgpu_format)
                            .unwrap_or(wgpu::TextureFormat::R32Float),
                        view_dimension: view_dim(dim),
                    }
                }
                ImageClass::Depth { .. } => wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Depth,
                    view_dimension: view_dim(dim),
                    multisampled: false,
                },
                _ => {
                    let sample_type = match format.map(|f| (f.kind(), f.channel())) {
                        Some((crate::texture::SampleKind::Sint, _)) => {
                            wgpu::TextureSampleType::Sint
                        }
                        Some((crate::texture::SampleKind::Uint, _)) => {
                            wgpu::TextureSampleType::Uint
                        }
                        Some((_, crate::texture::Channel::F32)) => {
                            wgpu::TextureSampleType::Float { filterable: float32_filterable }
                        }
                        _ => wgpu::TextureSampleType::Float { filterable: true },
                    };
                    wgpu::BindingType::Texture {
                        sample_type,
                        view_dimension: view_dim(dim),
                        multisampled: false,
                    }
                }
            }
        }
        HandleKind::Sampler { comparison } => {
            let s = tex.samplers.get(&key).copied().unwrap_or_default();
            let linear = [s.mag, s.min, s.mipmap].contains(&Filter::Linear);
            wgpu::BindingType::Sampler(if comparison {
                wgpu::SamplerBindingType::Comparison
            } else if linear {
                wgpu::SamplerBindingType::Filtering
            } else {
                wgpu::SamplerBindingType::NonFiltering
            })
        }
    };
    wgpu::BindGroupLayoutEntry {
        binding: h.binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty,
        count: None,
    }
}

/// A texture's GPU copy: the texture and its view.
pub(crate) struct GpuTexture {
    pub key: (u32, u32),
    pub texture: wgpu::Texture,
    pub view: wgpu::TextureView,
    pub writable: bool,
}

/// The samplers of a run by (group, binding).
pub(crate) type GpuSamplers = Vec<((u32, u32), wgpu::Sampler)>;

/// Creates and fills the textures and samplers of `handles`.
pub(crate) fn create(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    handles: &[HandleBinding],
    tex: &TextureBindings,
) -> (Vec<GpuTexture>, GpuSamplers) {
    let mut textures = Vec::new();
    let mut samplers = Vec::new();
    for h in handles {
        let key = (h.group, h.binding);
        match h.kind {
            HandleKind::Texture { dim, .. } => {
                let Some(t) = tex.textures.get(&key) else { continue };
                let Some(format) = wgpu_format(t.format) else { continue };
                let (texture, view) = upload(device, queue, t, dim, format, h.is_writable());
                textures.push(GpuTexture { key, texture, view, writable: h.is_writable() });
            }
            HandleKind::Sampler { .. } => {
                let s = tex.samplers.get(&key).copied().unwrap_or_default();
                samplers.push((key, device.create_sampler(&sampler_desc(&s))));
            }
        }
    }
    (textures, samplers)
}

fn upload(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    t: &TextureData,
    dim: TexDim,
    format: wgpu::TextureFormat,
    writable: bool,
) -> (wgpu::Texture, wgpu::TextureView) {
    let dimension = match dim {
        TexDim::D1 => wgpu::TextureDimension::D1,
        TexDim::D3 => wgpu::TextureDimension::D3,
        _ => wgpu::TextureDimension::D2,
    };
    let depth = t.format.is_depth();
    let mut usage = wgpu::TextureUsages::TEXTURE_BINDING;
    usage |= if depth {
        wgpu::TextureUsages::RENDER_ATTACHMENT
    } else {
        wgpu::TextureUsages::COPY_DST | wgpu::TextureUsages::COPY_SRC
    };
    if writable {
        usage |= wgpu::TextureUsages::STORAGE_BINDING;
    }
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: None,
        size: wgpu::Extent3d {
            width: t.width,
            height: t.height,
            depth_or_array_layers: t.depth_or_layers,
        },
        mip_level_count: t.mip_levels,
        sample_count: 1,
        dimension,
        format,
        usage,
        view_formats: &[],
    });
    if depth {
        fill_depth(device, queue, &texture, t);
    }
    let bpt = t.format.bytes_per_texel() as u32;
    for level in (0..t.mip_levels).filter(|_| !depth) {
        let [w, h, d] = t.dimensions(level);
        let slices = if dim == TexDim::D3 { d } else { t.depth_or_layers };
        let start = t.level_offset(level) as usize;
        let end = t.level_offset(level + 1) as usize;
        queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &texture,
                mip_level: level,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            &t.data[start..end],
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(w * bpt),
                rows_per_image: Some(h),
            },
            wgpu::Extent3d { width: w, height: h, depth_or_array_layers: slices },
        );
    }
    let view = texture.create_view(&wgpu::TextureViewDescriptor {
        dimension: Some(view_dim(dim)),
        // A storage binding sees one level.
        mip_level_count: if writable { Some(1) } else { None },
        ..Default::default()
    });
    (texture, view)
}

/// Draws every level and layer of a depth texture from its texels.
fn fill_depth(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
    t: &TextureData,
) {
    const SHADER: &str = "
struct Where { width: u32, base: u32 }
@group(0) @binding(0) var<storage, read> texels: array<f32>;
@group(0) @binding(1) var<uniform> at: Where;
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let p = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(p * 4.0 - 1.0, 0.0, 1.0);
}
@fragment fn fs(@builtin(position) pos: vec4<f32>) -> @builtin(frag_depth) f32 {
    return texels[at.base + u32(pos.y) * at.width + u32(pos.x)];
}
";
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("depth fill"),
        source: wgpu::ShaderSource::Wgsl(SHADER.into()),
    });
    let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("depth fill"),
        layout: None,
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs"),
            compilation_options: Default::default(),
            buffers: &[],
        },
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: Some(wgpu::DepthStencilState {
            format: wgpu::TextureFormat::Depth32Float,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::Always),
            stencil: wgpu::StencilState::default(),
            bias: wgpu::DepthBiasState::default(),
        }),
        multisample: wgpu::MultisampleState::default(),
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs"),
            compilation_options: Default::default(),
            targets: &[],
        }),
        multiview_mask: None,
        cache: None,
    });
    let texels = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: (t.data.len() as u64).max(4),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    queue.write_buffer(&texels, 0, &t.data);
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    let mut keep = Vec::new();
    for level in 0..t.mip_levels {
        let [w, h, _] = t.dimensions(level);
        for layer in 0..t.depth_or_layers {
            let base = (t.level_offset(level) / 4) as u32 + layer * w * h;
            let at = device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: 16,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let words: Vec<u8> = [w, base, 0, 0].iter().flat_map(|x| x.to_le_bytes()).collect();
            queue.write_buffer(&at, 0, &words);
            let bg = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: &pipeline.get_bind_group_layout(0),
                entries: &[
                    wgpu::BindGroupEntry { binding: 0, resource: texels.as_entire_binding() },
                    wgpu::BindGroupEntry { binding: 1, resource: at.as_entire_binding() },
                ],
            });
            let view = texture.create_view(&wgpu::TextureViewDescriptor {
                dimension: Some(wgpu::TextureViewDimension::D2),
                base_mip_level: level,
                mip_level_count: Some(1),
                base_array_layer: layer,
                array_layer_count: Some(1),
                ..Default::default()
            });
            {
                let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: None,
                    color_attachments: &[],
                    depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                        view: &view,
                        depth_ops: Some(wgpu::Operations {
                            load: wgpu::LoadOp::Clear(0.0),
                            store: wgpu::StoreOp::Store,
                        }),
                        stencil_ops: None,
                    }),
                    timestamp_writes: None,
                    occlusion_query_set: None,
                    multiview_mask: None,
                });
                pass.set_pipeline(&pipeline);
                pass.set_bind_group(0, &bg, &[]);
                pass.draw(0..3, 0..1);
            }
            keep.push((at, bg, view));
        }
    }
    queue.submit([encoder.finish()]);
    drop(keep);
}

fn sampler_desc(s: &SamplerDesc) -> wgpu::SamplerDescriptor<'static> {
    let address = |a: AddressMode| match a {
        AddressMode::ClampToEdge => wgpu::AddressMode::ClampToEdge,
        AddressMode::Repeat => wgpu::AddressMode::Repeat,
        AddressMode::MirrorRepeat => wgpu::AddressMode::MirrorRepeat,
        AddressMode::ClampToBorder => wgpu::AddressMode::ClampToBorder,
    };
    let filter = |f: Filter| match f {
        Filter::Nearest => wgpu::FilterMode::Nearest,
        Filter::Linear => wgpu::FilterMode::Linear,
    };
    let compare = s.compare.map(|c| match c {
        CompareFn::Never => wgpu::CompareFunction::Never,
        CompareFn::Less => wgpu::CompareFunction::Less,
        CompareFn::Equal => wgpu::CompareFunction::Equal,
        CompareFn::LessEqual => wgpu::CompareFunction::LessEqual,
        CompareFn::Greater => wgpu::CompareFunction::Greater,
        CompareFn::NotEqual => wgpu::CompareFunction::NotEqual,
        CompareFn::GreaterEqual => wgpu::CompareFunction::GreaterEqual,
        CompareFn::Always => wgpu::CompareFunction::Always,
    });
    let uses_border = s.address.contains(&AddressMode::ClampToBorder);
    wgpu::SamplerDescriptor {
        label: None,
        address_mode_u: address(s.address[0]),
        address_mode_v: address(s.address[1]),
        address_mode_w: address(s.address[2]),
        mag_filter: filter(s.mag),
        min_filter: filter(s.min),
        mipmap_filter: match s.mipmap {
            Filter::Nearest => wgpu::MipmapFilterMode::Nearest,
            Filter::Linear => wgpu::MipmapFilterMode::Linear,
        },
        lod_min_clamp: s.lod_min_clamp,
        lod_max_clamp: s.lod_max_clamp,
        compare,
        anisotropy_clamp: 1,
        border_color: uses_border.then_some(match s.border {
            BorderColor::TransparentBlack => wgpu::SamplerBorderColor::TransparentBlack,
            BorderColor::OpaqueBlack => wgpu::SamplerBorderColor::OpaqueBlack,
            BorderColor::OpaqueWhite => wgpu::SamplerBorderColor::OpaqueWhite,
        }),
    }
}

/// A staging buffer holding level 0 of a storage texture after the dispatch, rows padded to
/// wgpu's copy alignment.
pub(crate) struct Readback {
    pub key: (u32, u32),
    pub staging: wgpu::Buffer,
    row_bytes: u32,
    padded_row: u32,
    rows: u32,
}

/// Copies level 0 of every writable texture into a staging buffer.
pub(crate) fn copy_out(
    device: &wgpu::Device,
    encoder: &mut wgpu::CommandEncoder,
    gpu: &[GpuTexture],
    tex: &TextureBindings,
) -> Vec<Readback> {
    let mut out = Vec::new();
    for g in gpu.iter().filter(|g| g.writable) {
        let Some(t) = tex.textures.get(&g.key) else { continue };
        let [w, h, d] = t.dimensions(0);
        let slices = if t.dim == TexDim::D3 { d } else { t.depth_or_layers };
        let row_bytes = w * t.format.bytes_per_texel() as u32;
        let padded_row = row_bytes.next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let rows = h * slices;
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: u64::from(padded_row) * u64::from(rows),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &g.texture,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &staging,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded_row),
                    rows_per_image: Some(h),
                },
            },
            wgpu::Extent3d { width: w, height: h, depth_or_array_layers: slices },
        );
        out.push(Readback { key: g.key, staging, row_bytes, padded_row, rows });
    }
    out
}

/// Writes a mapped staging buffer's rows back into level 0 of the texture.
pub(crate) fn store_back(r: &Readback, mapped: &[u8], tex: &mut TextureBindings) {
    let Some(t) = tex.textures.get_mut(&r.key) else { return };
    let (row, padded) = (r.row_bytes as usize, r.padded_row as usize);
    for i in 0..r.rows as usize {
        let (Some(src), Some(dst)) =
            (mapped.get(i * padded..i * padded + row), t.data.get_mut(i * row..(i + 1) * row))
        else {
            return;
        };
        dst.copy_from_slice(src);
    }
}
