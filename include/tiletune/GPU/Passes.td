//===- Passes.td - TileTune GPU passes ---------------------*- tablegen -*-===//
//
// Passes that tile tunable linalg ops for NVIDIA GPUs by their
// `#tiletune.config<cuda, ...>` attribute and prepare them for NVVM lowering.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_GPU_PASSES_TD
#define TILETUNE_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileTuneTileGPU : Pass<"tiletune-tile-gpu", "::mlir::ModuleOp"> {
  let summary = "Tile linalg ops onto GPU blocks and threads by their cuda "
                "config";
  let description = [{
    Every `linalg.matmul`, `linalg.batch_matmul`, `linalg.conv_2d_nhwc_hwcf`
    and `linalg.conv_2d_nchw_fchw` on buffers that carries a
    `#tiletune.config<cuda, ...>` is rewritten into a `gpu.launch` following
    OpEvo's templates:

    * parallel dims: `block` tiles are mapped to thread blocks, `vthread`
      tiles become sequential loops inside each thread (virtual threads,
      strided like TVM's), `thread` tiles are mapped to threads; the thread
      tile is each thread's register tile;
    * batch dims: the `block` tile is mapped to blocks, each thread loops
      over the batch entries of its block;
    * reduction dims: the `shared` tile is the step of the loop around a
      cooperative copy of the operand tiles into workgroup (shared) memory,
      the `register` tile (matmul, batch_matmul) is the step of the inner
      loop over the shared tiles;
    * `max_unroll` / `explicit_unroll` control unrolling (docs/GPU.md).

    Before:

    ```mlir
    linalg.matmul {tiletune.config = #tiletune.config<cuda,
        block = {m = 64, n = 64}, vthread = {m = 32, n = 32},
        thread = {m = 2, n = 2}, shared = {k = 16}, register = {k = 4}>}
      ins(%A, %B : memref<512x1024xf32>, memref<1024x1024xf32>)
      outs(%C : memref<512x1024xf32>)
    ```

    After (sketch):

    ```mlir
    gpu.launch blocks(...) in (16, 8, 1) threads(...) in (16, 16, 1)
        workgroup(%As : memref<4096xi8, #gpu.address_space<workgroup>>,
                  %Bs : memref<4096xi8, #gpu.address_space<workgroup>>) {
      scf.for %k0 = 0 to 1024 step 16 {      // shared level
        <each thread copies 1x4 of A and B into %As, %Bs>
        gpu.barrier
        scf.for %vm ... scf.for %vn ...       // virtual threads
          %c = vector.transfer_read %C ...    // 2x2 register tile
          scf.for %k1 = 0 to 16 step 4 ...    // register level: vector.fma
          vector.transfer_write ...
        gpu.barrier
      }
    }
    ```

    Ops without a config, or with a `cpu` config, are left untouched. Ops on
    tensors are an error (bufferize first; `tiletune-lower-gpu` does).
  }];
  let options = [
    Option<"mapToGPU", "map-to-gpu", "bool", /*default=*/"true",
           "Create gpu.launch and map blocks/threads; when false, stop at "
           "nested scf.forall loops with GPU mapping attributes and promoted "
           "buffers in the default memory space (runs on the CPU, for "
           "testing the tiling)">,
    Option<"vectorize", "vectorize", "bool", /*default=*/"true",
           "Vectorize the per-thread tiles and shared-memory copies">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::transform::TransformDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def TileTuneDefaultGPUConfig : Pass<"tiletune-default-gpu-config"> {
  let summary = "Attach a legal default cuda config to tunable ops without "
                "a config";
  let description = [{
    Sets `#tiletune.config<cuda, ...>` on every `linalg.matmul`,
    `batch_matmul`, `conv_2d_nhwc_hwcf` and `conv_2d_nchw_fchw` without a
    config (with `overwrite`, on all of them), so `tiletune-lower-gpu` can
    compile an untuned module. The heuristic (computeDefaultCUDAConfig)
    maps the two innermost parallel loops onto up to 16 x 16 threads with up
    to 4 x 4 outputs each, stages reduction tiles of up to 16 (matmuls) or 8
    input channels (convolutions) through shared memory, and puts batch and
    other parallel loops on blocks; it shrinks the tiles until the plan
    passes the GPU limits and keeps at most 255 accumulators per thread, and
    works for every static shape (primes and 1 included). The tuner measures
    this config first.
  }];
  let options = [
    Option<"overwrite", "overwrite", "bool", /*default=*/"false",
           "Replace existing configs too (default: keep them)">,
  ];
  let dependentDialects = ["::mlir::tiletune::TileTuneDialect"];
}

def TileTuneGPUCheck : Pass<"tiletune-gpu-check", "::mlir::ModuleOp"> {
  let summary = "Check the GPU target options and the cuda configs before "
                "lowering";
  let description = [{
    Fails with a clear error when `chip` / `features` name a target the NVPTX
    backend would abort on (for example sm_90 with the default +ptx60), or
    when a `#tiletune.config<cuda, ...>` in the module asks for more threads
    per block, block dimensions or static shared memory than the GPU has.
    `tiletune-lower-gpu` runs it first.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "Target GPU architecture (sm_70 ... sm_90a)">,
    Option<"features", "features", "std::string", /*default=*/"\"\"",
           "PTX ISA feature (+ptxNN); empty picks one the chip supports">,
    Option<"format", "format", "std::string", /*default=*/"\"fatbin\"",
           "gpu.binary format: isa, bin or fatbin">,
  ];
}

#endif // TILETUNE_GPU_PASSES_TD
