// `attend train --device cpu|cuda`: which device a training run uses, the check that it can be used here, and the
// GPU steps behind the interface every step has (train/train_step.h: TrainStepBackend, the CPU's step).
// Only Transformer models with the cross_entropy loss have a GPU step; the trainer refuses anything else on cuda
// before any work.
// The CUDA backend (cuda::TransformerCuda) keeps parameters and Adam moments on the GPU in the CPU's flat layout,
// so a checkpoint written from download() is the same file the CPU trainer writes, and resumes on either device.
#pragma once
#include "model/transformer.h"
#include "train/optimizer.h"
#include "train/train_batch.h"
#include "train/communicator.h"
#include "train/gemm_precision.h"
#include "train/train_step.h"
#include "train/trainer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace attend {

enum class TrainDevice { Cpu, Cuda };

// "cpu" or "cuda" (also "cuda:0"); anything else throws attend::Error naming the accepted values.
TrainDevice parse_train_device(const std::string& name);
const char* train_device_name(TrainDevice device);

// Throws attend::Error when `attend train --device` cannot use `device` in this build on this machine: no CUDA
// backend compiled in, or no usable GPU (with the CUDA runtime's reason). Does nothing for the CPU.
void require_train_device(TrainDevice device);

// Trains on `device`: train_translator with options.device set to it.
TrainResult train_translator_on(TrainDevice device, const TrainOptions& options, bool resume,
                                const TrainHooks& hooks = {});

// Null for the CPU (make_cpu_train_step trains there). For cuda: the GPU step (parameters copied from `model`, Adam
// configured as `adam`: the run's adam_config), or an attend::Error naming why not (no CUDA backend in this build,
// no usable GPU). precision: the GEMMs' arithmetic (TrainOptions::precision).
// With ranks (`mpirun -np N attend train --device cuda`) each rank takes GPU local_rank() % GPUs of its machine and
// steps on its share of every batch; the gradients are summed with NCCL when every rank has a GPU of its own, else
// through the host with MPI (ranks sharing a GPU, a build without NCCL). Every rank calls it together.
std::unique_ptr<TrainStepBackend> make_train_step_backend(TrainDevice device, const Transformer& model,
                                                          const AdamConfig& adam,
                                                          GemmPrecision precision = GemmPrecision::FP32,
                                                          Communicator& comm = single_process());

// Whether `architecture` (TrainOptions::architecture) has a GPU step: the Transformer's.
bool has_gpu_train_step(const std::string& architecture);

// make_train_step_backend for `network`, one of an architecture that has a GPU step.
std::unique_ptr<TrainStepBackend> make_gpu_train_step(TrainDevice device, const TranslatorNetwork& network,
                                                      const AdamConfig& adam, GemmPrecision precision,
                                                      Communicator& comm);

}  // namespace attend
