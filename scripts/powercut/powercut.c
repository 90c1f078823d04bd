// powercut: an LD_PRELOAD shim that journals what a process does to the files under one
// directory, so that capture-faults can build the states a power cut could leave
// (docs/faults.md, "Power cuts"). It changes nothing: every call goes on to the C library.
//
//   POWERCUT_ROOT=/abs/data/dir POWERCUT_JOURNAL=/abs/journal LD_PRELOAD=libpowercut.so capture …
//
// Journalled, for regular files and directories under POWERCUT_ROOT only: every write (write,
// pwrite, writev, pwritev, copy_file_range, sendfile, with the bytes written), every size change
// (ftruncate, truncate, an open with O_TRUNC, fallocate), every fsync/fdatasync (of a file or of
// a directory), sync/syncfs, and the name changes (a create by open/creat/mkstemp, rename,
// unlink, mkdir, rmdir). Files are named by inode, so a write through any descriptor, dup or
// process lands on the right file. One journal serves every process that inherits the
// environment (the recorder that `capture start` spawns too): each record is appended with one
// write while this process holds a mutex and an flock on the journal, taken before the real call
// and released after its record, so the journal's order is the order the calls happened in.
//
// Record (host byte order, 48-byte header): u32 size of the whole record, u8 op, 3 bytes 0, i32
// pid, u32 0, u64 inode,
// i64 offset, i64 length, u32 path length, u32 second path length, the paths, then for a write
// its `length` bytes.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

enum {
    OP_WRITE = 'W',     // inode, offset, length, path, bytes
    OP_TRUNCATE = 'T',  // inode, length (the new size), path
    OP_EXTEND = 'A',    // inode, length (the size at least), path: fallocate
    OP_SYNC = 'S',      // inode, path: fsync/fdatasync of a file
    OP_DIRSYNC = 'D',   // inode, path: fsync of a directory
    OP_ALLSYNC = 'G',   // sync(), syncfs()
    OP_SYNCFAILED = 'E', // inode, path: an fsync/fdatasync that failed (here: POWERCUT_FAIL_SYNC)
    OP_CREATE = 'C',    // inode, path: a new file
    OP_MKDIR = 'M',     // inode, path
    OP_RENAME = 'R',    // inode (of the source), path (source), second path (target)
    OP_UNLINK = 'U',    // inode, path
    OP_RMDIR = 'X',     // inode, path
};

struct header {
    uint32_t size;
    uint8_t op, pad[3];
    int32_t pid;
    uint32_t reserved;
    uint64_t inode;
    int64_t offset, length;
    uint32_t path_length, path2_length;
};

static char root[PATH_MAX];
static size_t root_length;
// POWERCUT_FAIL_SYNC=NAME:N: the Nth fsync/fdatasync (counted across the processes sharing the
// journal, by its size) of a file or directory whose path ends in /NAME fails with EIO without
// syncing, as a failing medium's would. What Linux then does is the trap PostgreSQL fell into ("fsyncgate"):
// the unsynced pages are marked clean, so a later fsync succeeds without them.
static char fail_name[256];
static long fail_at = -1;
static int journal = -1;
static pthread_mutex_t mutex = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

#define REAL(name) static __typeof__(name) *real_##name
REAL(open); REAL(open64); REAL(openat); REAL(openat64); REAL(creat); REAL(creat64);
REAL(mkstemp); REAL(mkstemp64); REAL(mkostemp); REAL(mkostemp64);
REAL(write); REAL(pwrite); REAL(pwrite64); REAL(writev); REAL(pwritev); REAL(pwritev64); REAL(pwritev2);
REAL(ftruncate); REAL(ftruncate64); REAL(truncate); REAL(truncate64);
REAL(fallocate); REAL(fallocate64); REAL(posix_fallocate); REAL(posix_fallocate64);
REAL(fsync); REAL(fdatasync); REAL(sync); REAL(syncfs);
REAL(rename); REAL(renameat); REAL(renameat2); REAL(unlink); REAL(unlinkat);
REAL(mkdir); REAL(mkdirat); REAL(rmdir); REAL(copy_file_range); REAL(sendfile); REAL(sendfile64);

#define LOAD(name) real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

__attribute__((constructor)) static void setup(void) {
    LOAD(open); LOAD(open64); LOAD(openat); LOAD(openat64); LOAD(creat); LOAD(creat64);
    LOAD(mkstemp); LOAD(mkstemp64); LOAD(mkostemp); LOAD(mkostemp64);
    LOAD(write); LOAD(pwrite); LOAD(pwrite64); LOAD(writev); LOAD(pwritev); LOAD(pwritev64); LOAD(pwritev2);
    LOAD(ftruncate); LOAD(ftruncate64); LOAD(truncate); LOAD(truncate64);
    LOAD(fallocate); LOAD(fallocate64); LOAD(posix_fallocate); LOAD(posix_fallocate64);
    LOAD(fsync); LOAD(fdatasync); LOAD(sync); LOAD(syncfs);
    LOAD(rename); LOAD(renameat); LOAD(renameat2); LOAD(unlink); LOAD(unlinkat);
    LOAD(mkdir); LOAD(mkdirat); LOAD(rmdir); LOAD(copy_file_range); LOAD(sendfile); LOAD(sendfile64);
    const char *r = getenv("POWERCUT_ROOT"), *j = getenv("POWERCUT_JOURNAL");
    if (!r || !j || strlen(r) >= sizeof root) return;
    strcpy(root, r);
    root_length = strlen(root);
    while (root_length > 1 && root[root_length - 1] == '/') root[--root_length] = 0;
    journal = (int)syscall(SYS_openat, AT_FDCWD, j, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    const char *f = getenv("POWERCUT_FAIL_SYNC");
    const char *colon = f ? strrchr(f, ':') : NULL;
    if (colon && (size_t)(colon - f) < sizeof fail_name - 1) {
        fail_name[0] = '/';
        memcpy(fail_name + 1, f, (size_t)(colon - f));
        fail_name[colon - f + 1] = 0;
        fail_at = atol(colon + 1);
    }
}

// Whether this sync of `path` is the one to fail: counted in a file beside the journal, so that
// every process sharing the journal counts together (called with the lock held).
static int sync_fails(const char *path) {
    if (fail_at < 0) return 0;
    size_t n = strlen(path), m = strlen(fail_name);
    if (n < m || strcmp(path + n - m, fail_name) != 0) return 0;
    char counter[PATH_MAX];
    if (snprintf(counter, sizeof counter, "%s.syncs", getenv("POWERCUT_JOURNAL")) >= (int)sizeof counter) return 0;
    int fd = (int)syscall(SYS_openat, AT_FDCWD, counter, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return 0;
    long count = 0;
    char text[32] = {0};
    if (syscall(SYS_pread64, fd, text, sizeof text - 1, 0) > 0) count = atol(text);
    count += 1;
    int length = snprintf(text, sizeof text, "%ld\n", count);
    syscall(SYS_pwrite64, fd, text, (size_t)length, 0);
    close(fd);
    return count == fail_at;
}

static int under_root(const char *path) {
    return journal >= 0 && strncmp(path, root, root_length) == 0 && (path[root_length] == '/' || path[root_length] == 0);
}

// The path of a descriptor, if it is a regular file or directory under the root.
static int fd_path(int fd, char *path, uint64_t *inode, int *is_dir) {
    if (journal < 0 || fd < 0) return 0;
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, PATH_MAX - 1);
    if (n <= 0) return 0;
    path[n] = 0;
    if (!under_root(path)) return 0;
    struct stat st;
    if (fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) return 0;
    *inode = st.st_ino;
    if (is_dir) *is_dir = S_ISDIR(st.st_mode);
    return 1;
}

// `path` made absolute (relative to `dirfd`), without resolving symbolic links.
static int absolute(int dirfd, const char *path, char *out) {
    if (journal < 0 || !path) return 0;
    if (path[0] == '/') {
        if (strlen(path) >= PATH_MAX) return 0;
        strcpy(out, path);
    } else {
        char base[PATH_MAX];
        if (dirfd == AT_FDCWD) {
            if (!getcwd(base, sizeof base)) return 0;
        } else {
            char link[64];
            snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
            ssize_t n = readlink(link, base, sizeof base - 1);
            if (n <= 0) return 0;
            base[n] = 0;
        }
        const char *rest = path;
        while (rest[0] == '.' && rest[1] == '/') rest += 2;
        if (snprintf(out, PATH_MAX, "%s/%s", base, rest) >= PATH_MAX) return 0;
    }
    return under_root(out);
}

// The mutex orders this process's threads, the flock the processes (an flock belongs to the
// open journal, which every thread of a process shares). Nested (mkstemp): the flock once.
static __thread int depth;

static void lock(void) {
    pthread_mutex_lock(&mutex);
    if (depth++ == 0 && journal >= 0) while (flock(journal, LOCK_EX) != 0 && errno == EINTR) {}
}

static void unlock(void) {
    if (--depth == 0 && journal >= 0) flock(journal, LOCK_UN);
    pthread_mutex_unlock(&mutex);
}

// Appends one record (called with the lock held). `data` has `length` bytes for a write.
static void record(int op, uint64_t inode, int64_t offset, int64_t length, const char *path, const char *path2,
                   const struct iovec *data, int count) {
    if (journal < 0) return;
    struct header h = {0};
    h.op = (uint8_t)op;
    h.pid = (int32_t)getpid();
    h.inode = inode;
    h.offset = offset;
    h.length = length;
    h.path_length = path ? (uint32_t)strlen(path) : 0;
    h.path2_length = path2 ? (uint32_t)strlen(path2) : 0;
    size_t payload = op == OP_WRITE ? (size_t)length : 0;
    size_t size = sizeof h + h.path_length + h.path2_length + payload;
    h.size = (uint32_t)size;
    char *buffer = malloc(size);
    if (!buffer) abort();
    char *p = buffer;
    memcpy(p, &h, sizeof h), p += sizeof h;
    if (h.path_length) memcpy(p, path, h.path_length), p += h.path_length;
    if (h.path2_length) memcpy(p, path2, h.path2_length), p += h.path2_length;
    size_t left = payload;
    for (int i = 0; i < count && left > 0; i++) {
        size_t n = data[i].iov_len < left ? data[i].iov_len : left;
        memcpy(p, data[i].iov_base, n), p += n, left -= n;
    }
    // One write: the journal is O_APPEND and locked, so records never interleave.
    size_t done = 0;
    while (done < size) {
        ssize_t n = syscall(SYS_write, journal, buffer + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) abort();  // a journal with a hole would give wrong crash states
        done += (size_t)n;
    }
    free(buffer);
}

// Journals what the bytes [offset, offset + n) of `fd` now hold, read back from the file.
static void record_range(int fd, const char *path, uint64_t inode, int64_t offset, ssize_t n) {
    if (n <= 0) return;
    char *bytes = malloc((size_t)n);
    if (!bytes) abort();
    ssize_t got = syscall(SYS_pread64, fd, bytes, (size_t)n, offset);
    struct iovec v = {bytes, got > 0 ? (size_t)got : 0};
    if (got > 0) record(OP_WRITE, inode, offset, got, path, NULL, &v, 1);
    free(bytes);
}

// ---- opening and creating ----

// Before an open: the absolute path and whether the file was there.
#define BEFORE_OPEN(dirfd, path)                                                    \
    char full[PATH_MAX];                                                            \
    int watched = absolute(dirfd, path, full);                                      \
    struct stat before;                                                             \
    int existed = watched && lstat(full, &before) == 0;                             \
    if (watched) lock();

// After it: a new file is a create, an existing one opened with O_TRUNC a truncation.
static int opened(int watched, const char *full, int existed, int flags, int fd) {
    if (!watched) return fd;
    int saved = errno;
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        if (!existed && (flags & O_CREAT)) record(OP_CREATE, st.st_ino, 0, 0, full, NULL, NULL, 0);
        else if (existed && (flags & O_TRUNC) && (flags & O_ACCMODE) != O_RDONLY)
            record(OP_TRUNCATE, st.st_ino, 0, 0, full, NULL, NULL, 0);
    }
    unlock();
    errno = saved;
    return fd;
}

#define MODE_ARG                                   \
    mode_t mode = 0;                               \
    if (flags & (O_CREAT | __O_TMPFILE)) {         \
        va_list ap;                                \
        va_start(ap, flags);                       \
        mode = (mode_t)va_arg(ap, int);            \
        va_end(ap);                                \
    }

int open(const char *path, int flags, ...) {
    MODE_ARG
    BEFORE_OPEN(AT_FDCWD, path)
    return opened(watched, full, existed, flags, real_open(path, flags, mode));
}
int open64(const char *path, int flags, ...) {
    MODE_ARG
    BEFORE_OPEN(AT_FDCWD, path)
    return opened(watched, full, existed, flags, real_open64(path, flags, mode));
}
int openat(int dirfd, const char *path, int flags, ...) {
    MODE_ARG
    BEFORE_OPEN(dirfd, path)
    return opened(watched, full, existed, flags, real_openat(dirfd, path, flags, mode));
}
int openat64(int dirfd, const char *path, int flags, ...) {
    MODE_ARG
    BEFORE_OPEN(dirfd, path)
    return opened(watched, full, existed, flags, real_openat64(dirfd, path, flags, mode));
}
int creat(const char *path, mode_t mode) { return open(path, O_WRONLY | O_CREAT | O_TRUNC, mode); }
int creat64(const char *path, mode_t mode) { return open64(path, O_WRONLY | O_CREAT | O_TRUNC, mode); }

// mkstemp's own open is inside the C library, out of reach: the new file is journalled here.
static int made_temporary(int fd) {
    char path[PATH_MAX];
    uint64_t inode;
    if (fd >= 0 && fd_path(fd, path, &inode, NULL)) {
        lock();
        record(OP_CREATE, inode, 0, 0, path, NULL, NULL, 0);
        unlock();
    }
    return fd;
}
int mkstemp(char *t) { lock(); int fd = made_temporary(real_mkstemp(t)); unlock(); return fd; }
int mkstemp64(char *t) { lock(); int fd = made_temporary(real_mkstemp64(t)); unlock(); return fd; }
int mkostemp(char *t, int f) { lock(); int fd = made_temporary(real_mkostemp(t, f)); unlock(); return fd; }
int mkostemp64(char *t, int f) { lock(); int fd = made_temporary(real_mkostemp64(t, f)); unlock(); return fd; }

// ---- writing ----

// Runs `call` (which returns bytes written) and journals the bytes it wrote at `offset`
// (-1: at the descriptor's position, read after the call).
#define WROTE(fd, offset, iov, count, call)                                         \
    char path[PATH_MAX];                                                            \
    uint64_t inode;                                                                 \
    int is_dir;                                                                     \
    if (!fd_path(fd, path, &inode, &is_dir) || is_dir) return call;                 \
    lock();                                                                         \
    ssize_t n = call;                                                               \
    int saved = errno;                                                              \
    if (n > 0) {                                                                    \
        int64_t at = (offset);                                                      \
        if (at < 0) at = (int64_t)lseek(fd, 0, SEEK_CUR) - n;                       \
        record(OP_WRITE, inode, at, n, path, NULL, iov, count);                     \
    }                                                                               \
    unlock();                                                                       \
    errno = saved;                                                                  \
    return n;

ssize_t write(int fd, const void *b, size_t c) {
    struct iovec v = {(void *)b, c};
    WROTE(fd, -1, &v, 1, real_write(fd, b, c))
}
ssize_t pwrite(int fd, const void *b, size_t c, off_t o) {
    struct iovec v = {(void *)b, c};
    WROTE(fd, o, &v, 1, real_pwrite(fd, b, c, o))
}
ssize_t pwrite64(int fd, const void *b, size_t c, off64_t o) {
    struct iovec v = {(void *)b, c};
    WROTE(fd, o, &v, 1, real_pwrite64(fd, b, c, o))
}
ssize_t writev(int fd, const struct iovec *v, int c) { WROTE(fd, -1, v, c, real_writev(fd, v, c)) }
ssize_t pwritev(int fd, const struct iovec *v, int c, off_t o) { WROTE(fd, o, v, c, real_pwritev(fd, v, c, o)) }
ssize_t pwritev64(int fd, const struct iovec *v, int c, off64_t o) { WROTE(fd, o, v, c, real_pwritev64(fd, v, c, o)) }
ssize_t pwritev2(int fd, const struct iovec *v, int c, off_t o, int f) {
    WROTE(fd, o, v, c, real_pwritev2(fd, v, c, o, f))
}

// Copies between descriptors: the bytes are read back from the target after the call.
#define COPIED(fd, call)                                                            \
    char path[PATH_MAX];                                                            \
    uint64_t inode;                                                                 \
    int is_dir;                                                                     \
    if (!fd_path(fd, path, &inode, &is_dir) || is_dir) return call;                 \
    lock();                                                                         \
    int64_t before = explicit_offset ? *explicit_offset : (int64_t)lseek(fd, 0, SEEK_CUR); \
    ssize_t n = call;                                                               \
    int saved = errno;                                                              \
    record_range(fd, path, inode, before, n);                                       \
    unlock();                                                                       \
    errno = saved;                                                                  \
    return n;

ssize_t copy_file_range(int in, off64_t *ino, int out, off64_t *outo, size_t len, unsigned int flags) {
    int64_t *explicit_offset = (int64_t *)outo;
    COPIED(out, real_copy_file_range(in, ino, out, outo, len, flags))
}
ssize_t sendfile(int out, int in, off_t *offset, size_t count) {
    int64_t *explicit_offset = NULL;
    COPIED(out, real_sendfile(out, in, offset, count))
}
ssize_t sendfile64(int out, int in, off64_t *offset, size_t count) {
    int64_t *explicit_offset = NULL;
    COPIED(out, real_sendfile64(out, in, offset, count))
}

// ---- sizes ----

#define SIZED(fd, op, size, call)                                                   \
    char path[PATH_MAX];                                                            \
    uint64_t inode;                                                                 \
    if (!fd_path(fd, path, &inode, NULL)) return call;                              \
    lock();                                                                         \
    int r = call;                                                                   \
    int saved = errno;                                                              \
    if (r == 0) record(op, inode, 0, (int64_t)(size), path, NULL, NULL, 0);         \
    unlock();                                                                       \
    errno = saved;                                                                  \
    return r;

int ftruncate(int fd, off_t l) { SIZED(fd, OP_TRUNCATE, l, real_ftruncate(fd, l)) }
int ftruncate64(int fd, off64_t l) { SIZED(fd, OP_TRUNCATE, l, real_ftruncate64(fd, l)) }
int fallocate(int fd, int m, off_t o, off_t l) {
    if (m & FALLOC_FL_KEEP_SIZE) return real_fallocate(fd, m, o, l);
    SIZED(fd, OP_EXTEND, o + l, real_fallocate(fd, m, o, l))
}
int fallocate64(int fd, int m, off64_t o, off64_t l) {
    if (m & FALLOC_FL_KEEP_SIZE) return real_fallocate64(fd, m, o, l);
    SIZED(fd, OP_EXTEND, o + l, real_fallocate64(fd, m, o, l))
}
int posix_fallocate(int fd, off_t o, off_t l) { SIZED(fd, OP_EXTEND, o + l, real_posix_fallocate(fd, o, l)) }
int posix_fallocate64(int fd, off64_t o, off64_t l) { SIZED(fd, OP_EXTEND, o + l, real_posix_fallocate64(fd, o, l)) }

#define TRUNCATED(path, length, call)                                               \
    char full[PATH_MAX];                                                            \
    if (!absolute(AT_FDCWD, path, full)) return call;                               \
    struct stat st;                                                                 \
    lock();                                                                         \
    int r = call, saved = errno;                                                    \
    if (r == 0 && stat(full, &st) == 0 && S_ISREG(st.st_mode))                      \
        record(OP_TRUNCATE, st.st_ino, 0, length, full, NULL, NULL, 0);             \
    unlock();                                                                       \
    errno = saved;                                                                  \
    return r;

int truncate(const char *p, off_t l) { TRUNCATED(p, l, real_truncate(p, l)) }
int truncate64(const char *p, off64_t l) { TRUNCATED(p, l, real_truncate64(p, l)) }

// ---- syncing ----

static int synced(int fd, int (*call)(int)) {
    char path[PATH_MAX];
    uint64_t inode;
    int is_dir;
    if (!fd_path(fd, path, &inode, &is_dir)) return call(fd);
    lock();
    if (sync_fails(path)) {
        if (!is_dir) record(OP_SYNCFAILED, inode, 0, 0, path, NULL, NULL, 0);
        unlock();
        errno = EIO;
        return -1;
    }
    int r = call(fd), saved = errno;
    // A failed sync makes nothing durable (docs/faults.md, fsyncgate).
    if (r == 0) record(is_dir ? OP_DIRSYNC : OP_SYNC, inode, 0, 0, path, NULL, NULL, 0);
    else if (!is_dir) record(OP_SYNCFAILED, inode, 0, 0, path, NULL, NULL, 0);
    unlock();
    errno = saved;
    return r;
}
int fsync(int fd) { return synced(fd, real_fsync); }
int fdatasync(int fd) { return synced(fd, real_fdatasync); }
void sync(void) {
    lock();
    real_sync();
    record(OP_ALLSYNC, 0, 0, 0, NULL, NULL, NULL, 0);
    unlock();
}
int syncfs(int fd) {
    lock();
    int r = real_syncfs(fd), saved = errno;
    if (r == 0) record(OP_ALLSYNC, 0, 0, 0, NULL, NULL, NULL, 0);
    unlock();
    errno = saved;
    return r;
}

// ---- names ----

#define RENAMED(olddir, old, newdir, new, call)                                     \
    char from[PATH_MAX], to[PATH_MAX];                                              \
    int a = absolute(olddir, old, from), b = absolute(newdir, new, to);             \
    if (!a && !b) return call;                                                      \
    struct stat st;                                                                 \
    int known = lstat(from, &st) == 0;                                              \
    lock();                                                                         \
    int r = call, saved = errno;                                                    \
    if (r == 0 && known) record(OP_RENAME, st.st_ino, 0, 0, a ? from : "", b ? to : "", NULL, 0); \
    unlock();                                                                       \
    errno = saved;                                                                  \
    return r;

int rename(const char *o, const char *n) { RENAMED(AT_FDCWD, o, AT_FDCWD, n, real_rename(o, n)) }
int renameat(int od, const char *o, int nd, const char *n) { RENAMED(od, o, nd, n, real_renameat(od, o, nd, n)) }
int renameat2(int od, const char *o, int nd, const char *n, unsigned int f) {
    RENAMED(od, o, nd, n, real_renameat2(od, o, nd, n, f))
}

#define REMOVED(dirfd, path, op, call)                                              \
    char full[PATH_MAX];                                                            \
    if (!absolute(dirfd, path, full)) return call;                                  \
    struct stat st;                                                                 \
    int known = lstat(full, &st) == 0;                                              \
    lock();                                                                         \
    int r = call, saved = errno;                                                    \
    if (r == 0 && known) record(S_ISDIR(st.st_mode) ? OP_RMDIR : (op), st.st_ino, 0, 0, full, NULL, NULL, 0); \
    unlock();                                                                       \
    errno = saved;                                                                  \
    return r;

int unlink(const char *p) { REMOVED(AT_FDCWD, p, OP_UNLINK, real_unlink(p)) }
int unlinkat(int d, const char *p, int f) { REMOVED(d, p, (f & AT_REMOVEDIR) ? OP_RMDIR : OP_UNLINK, real_unlinkat(d, p, f)) }
int rmdir(const char *p) { REMOVED(AT_FDCWD, p, OP_RMDIR, real_rmdir(p)) }

#define MADE_DIRECTORY(dirfd, path, call)                                           \
    char full[PATH_MAX];                                                            \
    if (!absolute(dirfd, path, full)) return call;                                  \
    struct stat st;                                                                 \
    lock();                                                                         \
    int r = call, saved = errno;                                                    \
    if (r == 0 && lstat(full, &st) == 0) record(OP_MKDIR, st.st_ino, 0, 0, full, NULL, NULL, 0); \
    unlock();                                                                       \
    errno = saved;                                                                  \
    return r;

int mkdir(const char *p, mode_t m) { MADE_DIRECTORY(AT_FDCWD, p, real_mkdir(p, m)) }
int mkdirat(int d, const char *p, mode_t m) { MADE_DIRECTORY(d, p, real_mkdirat(d, p, m)) }
