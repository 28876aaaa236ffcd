package io.jkompute;

/**
 * A tensor's device memory exported as an opaque POSIX file descriptor, for another API to import — CUDA's
 * {@code cuImportExternalMemory} with {@code CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD}, then
 * {@code cuExternalMemoryGetMappedBuffer(offset, byteSize)}. Both APIs then work on the same bytes, with no copy.
 *
 * <p>The descriptor belongs to the caller until an import succeeds (CUDA then owns and closes it). The tensor must stay
 * open while the other API uses the memory.
 *
 * @param fd             the file descriptor
 * @param allocationSize size of the whole exported allocation (what the importer declares)
 * @param offset         where the tensor's bytes start in it
 * @param byteSize       the tensor's size in bytes
 * @param dedicated      whether the allocation is dedicated to this one buffer (CUDA's CUDA_EXTERNAL_MEMORY_DEDICATED)
 */
public record ExternalMemory(int fd, long allocationSize, long offset, long byteSize, boolean dedicated) {}
