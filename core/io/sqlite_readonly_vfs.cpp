#include "core/io/sqlite_readonly_vfs.h"

#include <sqlite3.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

namespace sawtooth::sql {
namespace {

constexpr const char* kName = "sawtooth-readonly";
constexpr int kBesideTheInput =
    SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_WAL | SQLITE_OPEN_MAIN_JOURNAL | SQLITE_OPEN_SUPER_JOURNAL;

sqlite3_vfs* g_base = nullptr;  // the default VFS, set once before registration
sqlite3_vfs* base() { return g_base; }

// Our file; the default VFS's file follows it in the same allocation.
struct File {
  sqlite3_file head;  // first: SQLite sees this; pMethods is kMethods, or null when the open failed
  // The input and what lies beside it are never written; SQLite's own temporary files (a sort
  // that spills past its memory, a temporary table) are written, or large queries fail.
  bool beside_the_input = true;
  bool private_shm = false;
  std::vector<void*> regions;  // the private WAL index
  sqlite3_file* real();
};
constexpr size_t kRealOffset = (sizeof(File) + 15) / 16 * 16;
sqlite3_file* File::real() { return reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(this) + kRealOffset); }

File* self(sqlite3_file* f) { return reinterpret_cast<File*>(f); }
sqlite3_file* real(sqlite3_file* f) { return self(f)->real(); }

void freeRegions(File* file) {
  for (void* r : file->regions) std::free(r);
  file->regions.clear();
}

int xClose(sqlite3_file* f) {
  File* file = self(f);
  freeRegions(file);
  const int rc = file->real()->pMethods ? file->real()->pMethods->xClose(file->real()) : SQLITE_OK;
  file->~File();
  return rc;
}
int xRead(sqlite3_file* f, void* out, int n, sqlite3_int64 at) { return real(f)->pMethods->xRead(real(f), out, n, at); }
int xWrite(sqlite3_file* f, const void* data, int n, sqlite3_int64 at) {
  if (self(f)->beside_the_input) return SQLITE_READONLY;
  return real(f)->pMethods->xWrite(real(f), data, n, at);
}
int xTruncate(sqlite3_file* f, sqlite3_int64 size) {
  if (self(f)->beside_the_input) return SQLITE_READONLY;
  return real(f)->pMethods->xTruncate(real(f), size);
}
int xSync(sqlite3_file* f, int flags) {
  if (self(f)->beside_the_input) return SQLITE_OK;  // nothing was written
  return real(f)->pMethods->xSync(real(f), flags);
}
int xFileSize(sqlite3_file* f, sqlite3_int64* size) { return real(f)->pMethods->xFileSize(real(f), size); }
int xLock(sqlite3_file* f, int level) { return real(f)->pMethods->xLock(real(f), level); }
int xUnlock(sqlite3_file* f, int level) { return real(f)->pMethods->xUnlock(real(f), level); }
int xCheckReservedLock(sqlite3_file* f, int* out) { return real(f)->pMethods->xCheckReservedLock(real(f), out); }
int xFileControl(sqlite3_file* f, int op, void* arg) { return real(f)->pMethods->xFileControl(real(f), op, arg); }
int xSectorSize(sqlite3_file* f) { return real(f)->pMethods->xSectorSize(real(f)); }
int xDeviceCharacteristics(sqlite3_file* f) { return real(f)->pMethods->xDeviceCharacteristics(real(f)); }

int xShmMap(sqlite3_file* f, int region, int size, int extend, void volatile** out) {
  File* file = self(f);
  if (!file->private_shm) {
    if (!file->real()->pMethods->xShmMap) return SQLITE_IOERR_SHMMAP;
    return file->real()->pMethods->xShmMap(file->real(), region, size, extend, out);
  }
  *out = nullptr;
  if (region < 0 || size <= 0) return SQLITE_IOERR_SHMMAP;
  const auto index = static_cast<size_t>(region);
  if (index >= file->regions.size()) {
    if (!extend) return SQLITE_OK;
    while (file->regions.size() <= index) {
      void* r = std::calloc(1, static_cast<size_t>(size));
      if (!r) return SQLITE_NOMEM;
      file->regions.push_back(r);
    }
  }
  *out = file->regions[index];
  return SQLITE_OK;
}
int xShmLock(sqlite3_file* f, int offset, int n, int flags) {
  File* file = self(f);
  if (file->private_shm) return SQLITE_OK;  // the index is this connection's alone
  return file->real()->pMethods->xShmLock(file->real(), offset, n, flags);
}
void xShmBarrier(sqlite3_file* f) {
  File* file = self(f);
  if (file->private_shm) std::atomic_thread_fence(std::memory_order_seq_cst);
  else file->real()->pMethods->xShmBarrier(file->real());
}
int xShmUnmap(sqlite3_file* f, int delete_flag) {
  File* file = self(f);
  if (file->private_shm) {
    freeRegions(file);
    return SQLITE_OK;
  }
  (void)delete_flag;  // never delete a -shm beside the input
  return file->real()->pMethods->xShmUnmap(file->real(), 0);
}
int xFetch(sqlite3_file* f, sqlite3_int64 at, int n, void** out) {
  if (real(f)->pMethods->iVersion < 3) {
    *out = nullptr;
    return SQLITE_OK;
  }
  return real(f)->pMethods->xFetch(real(f), at, n, out);
}
int xUnfetch(sqlite3_file* f, sqlite3_int64 at, void* p) {
  if (real(f)->pMethods->iVersion < 3) return SQLITE_OK;
  return real(f)->pMethods->xUnfetch(real(f), at, p);
}

const sqlite3_io_methods kMethods = {3,
                                     xClose,
                                     xRead,
                                     xWrite,
                                     xTruncate,
                                     xSync,
                                     xFileSize,
                                     xLock,
                                     xUnlock,
                                     xCheckReservedLock,
                                     xFileControl,
                                     xSectorSize,
                                     xDeviceCharacteristics,
                                     xShmMap,
                                     xShmLock,
                                     xShmBarrier,
                                     xShmUnmap,
                                     xFetch,
                                     xUnfetch};

int xOpen(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* f, int flags, int* out_flags) {
  File* file = new (f) File{};
  file->head.pMethods = nullptr;
  sqlite3_file* r = file->real();
  std::memset(r, 0, static_cast<size_t>(base()->szOsFile));
  file->beside_the_input = (flags & kBesideTheInput) != 0;
  if (file->beside_the_input) {
    flags &= ~(SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_DELETEONCLOSE | SQLITE_OPEN_EXCLUSIVE);
    flags |= SQLITE_OPEN_READONLY;
  }
  const int rc = base()->xOpen(base(), name, r, flags, out_flags);
  if (rc != SQLITE_OK || !r->pMethods) {
    file->~File();
    f->pMethods = nullptr;
    return rc != SQLITE_OK ? rc : SQLITE_CANTOPEN;
  }
  file->private_shm = (flags & SQLITE_OPEN_MAIN_DB) && name && sqlite3_uri_boolean(name, "private_shm", 0);
  file->head.pMethods = &kMethods;
  return SQLITE_OK;
}

int xDelete(sqlite3_vfs*, const char*, int) { return SQLITE_IOERR_DELETE; }  // nothing beside the input goes
int xAccess(sqlite3_vfs*, const char* name, int flags, int* out) { return base()->xAccess(base(), name, flags, out); }
int xFullPathname(sqlite3_vfs*, const char* name, int n, char* out) {
  return base()->xFullPathname(base(), name, n, out);
}
void* xDlOpen(sqlite3_vfs*, const char*) { return nullptr; }  // extensions are off for files that are data
void xDlError(sqlite3_vfs*, int n, char* out) {
  if (n > 0) std::strncpy(out, "extensions are not loaded", static_cast<size_t>(n) - 1), out[n - 1] = '\0';
}
void (*xDlSym(sqlite3_vfs*, void*, const char*))(void) { return nullptr; }
void xDlClose(sqlite3_vfs*, void*) {}
int xRandomness(sqlite3_vfs*, int n, char* out) { return base()->xRandomness(base(), n, out); }
int xSleep(sqlite3_vfs*, int us) { return base()->xSleep(base(), us); }
int xCurrentTime(sqlite3_vfs*, double* out) { return base()->xCurrentTime(base(), out); }
int xGetLastError(sqlite3_vfs*, int n, char* out) { return base()->xGetLastError(base(), n, out); }
int xCurrentTimeInt64(sqlite3_vfs*, sqlite3_int64* out) {
  if (base()->iVersion >= 2 && base()->xCurrentTimeInt64) return base()->xCurrentTimeInt64(base(), out);
  double days = 0;
  const int rc = base()->xCurrentTime(base(), &days);
  *out = static_cast<sqlite3_int64>(days * 86400000.0);
  return rc;
}

}  // namespace

const char* readOnlyVfs() {
  static const bool registered = [] {
    g_base = sqlite3_vfs_find(nullptr);
    if (!g_base) return false;
    static sqlite3_vfs vfs{};
    vfs.iVersion = 2;
    vfs.szOsFile = static_cast<int>(kRealOffset) + g_base->szOsFile;
    vfs.mxPathname = g_base->mxPathname;
    vfs.zName = kName;
    vfs.xOpen = xOpen;
    vfs.xDelete = xDelete;
    vfs.xAccess = xAccess;
    vfs.xFullPathname = xFullPathname;
    vfs.xDlOpen = xDlOpen;
    vfs.xDlError = xDlError;
    vfs.xDlSym = xDlSym;
    vfs.xDlClose = xDlClose;
    vfs.xRandomness = xRandomness;
    vfs.xSleep = xSleep;
    vfs.xCurrentTime = xCurrentTime;
    vfs.xGetLastError = xGetLastError;
    vfs.xCurrentTimeInt64 = xCurrentTimeInt64;
    return sqlite3_vfs_register(&vfs, 0) == SQLITE_OK;
  }();
  return registered ? kName : nullptr;
}

}  // namespace sawtooth::sql
