extension UploadRun {
    /// Has buffers of 128 KiB and more come from mmap, so that they go back to the system when
    /// freed: glibc's adaptive threshold would otherwise keep them in per-thread arenas, and the
    /// peak RSS of a large upload would grow with the number of threads that touched them.
    /// Process-wide; a front end that uploads calls it once before the run.
    public static func returnLargeBuffersToTheSystem() {
        _ = glibcMallopt(-3 /* M_MMAP_THRESHOLD, <malloc.h> */, 128 * 1024)
    }
}

/// glibc's `mallopt(3)`; `<malloc.h>` is not part of the Glibc module.
@_silgen_name("mallopt")
private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
