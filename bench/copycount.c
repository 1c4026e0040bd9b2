/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * libbench_copycount.so: an LD_PRELOAD census of the bytes a process copies, per
 * thread, for the benchmarks' "copies per sample byte" column (docs/performance.md).
 * It interposes the C library's copy functions (memcpy, memmove and their _chk
 * variants, mempcpy) and the socket receive calls (recv, recvfrom, recvmsg,
 * recvmmsg: the kernel copies each received byte once into the caller's buffer).
 * Copies shorter than COPYCOUNT_MIN bytes (default 256) are headers and bookkeeping,
 * not samples, and are not counted. Inlined copies (fixed small sizes) are invisible,
 * which is why the minimum exists; a sample copy is never that small.
 *
 * Threads are told apart by their names (prctl(PR_GET_NAME), refreshed every 1024
 * calls, since GNU Radio names its threads after they start). The table is written
 * as CSV to $COPYCOUNT_OUT by copycount_dump() (call it through ctypes before the
 * process exits) or, failing that, at exit; copycount_reset() starts the count afresh.
 *
 * Measurement tool only: never loaded by normal runs.
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_THREADS 512

struct thread_record {
    _Atomic uint64_t copy_bytes;
    _Atomic uint64_t copy_calls;
    _Atomic uint64_t recv_bytes;
    _Atomic uint64_t recv_calls;
    int tid;
    char name[16];
};

static struct thread_record records[MAX_THREADS];
static _Atomic int record_count;
static __thread struct thread_record* mine;
static __thread unsigned calls_since_name;
static size_t min_bytes = 256;
static _Atomic int dumped;

typedef void* (*memcpy_fn)(void*, const void*, size_t);
typedef void* (*memcpy_chk_fn)(void*, const void*, size_t, size_t);
typedef ssize_t (*recv_fn)(int, void*, size_t, int);
typedef ssize_t (*recvfrom_fn)(int, void*, size_t, int, struct sockaddr*, socklen_t*);
typedef ssize_t (*recvmsg_fn)(int, struct msghdr*, int);
typedef int (*recvmmsg_fn)(int, struct mmsghdr*, unsigned int, int, struct timespec*);

static memcpy_fn real_memcpy, real_memmove, real_mempcpy;
static memcpy_chk_fn real_memcpy_chk, real_memmove_chk;
static recv_fn real_recv;
static recvfrom_fn real_recvfrom;
static recvmsg_fn real_recvmsg;
static recvmmsg_fn real_recvmmsg;
static _Atomic int resolving;

/* Until dlsym has answered (it may copy memory itself), copy byte by byte. */
static void* slow_move(void* d, const void* s, size_t n)
{
    unsigned char* dst = d;
    const unsigned char* src = s;
    if (dst < src)
        for (size_t i = 0; i < n; i++)
            dst[i] = src[i];
    else
        for (size_t i = n; i-- > 0;)
            dst[i] = src[i];
    return d;
}

static void resolve(void)
{
    if (atomic_exchange(&resolving, 1))
        return;
    real_memcpy = (memcpy_fn)dlsym(RTLD_NEXT, "memcpy");
    real_memmove = (memcpy_fn)dlsym(RTLD_NEXT, "memmove");
    real_mempcpy = (memcpy_fn)dlsym(RTLD_NEXT, "mempcpy");
    real_memcpy_chk = (memcpy_chk_fn)dlsym(RTLD_NEXT, "__memcpy_chk");
    real_memmove_chk = (memcpy_chk_fn)dlsym(RTLD_NEXT, "__memmove_chk");
    real_recv = (recv_fn)dlsym(RTLD_NEXT, "recv");
    real_recvfrom = (recvfrom_fn)dlsym(RTLD_NEXT, "recvfrom");
    real_recvmsg = (recvmsg_fn)dlsym(RTLD_NEXT, "recvmsg");
    real_recvmmsg = (recvmmsg_fn)dlsym(RTLD_NEXT, "recvmmsg");
    const char* min = getenv("COPYCOUNT_MIN");
    if (min)
        min_bytes = strtoul(min, NULL, 10);
}

static struct thread_record* record(void)
{
    if (!mine) {
        const int i = atomic_fetch_add(&record_count, 1);
        if (i >= MAX_THREADS)
            return NULL;
        mine = &records[i];
        mine->tid = (int)syscall(SYS_gettid);
        calls_since_name = 1023;
    }
    if (++calls_since_name == 1024) {
        calls_since_name = 0;
        prctl(PR_GET_NAME, mine->name, 0, 0, 0);
    }
    return mine;
}

static void count_copy(size_t n)
{
    if (n < min_bytes)
        return;
    struct thread_record* r = record();
    if (r) {
        atomic_fetch_add_explicit(&r->copy_bytes, n, memory_order_relaxed);
        atomic_fetch_add_explicit(&r->copy_calls, 1, memory_order_relaxed);
    }
}

static void count_recv(ssize_t n)
{
    if (n <= 0)
        return;
    struct thread_record* r = record();
    if (r) {
        atomic_fetch_add_explicit(&r->recv_bytes, (uint64_t)n, memory_order_relaxed);
        atomic_fetch_add_explicit(&r->recv_calls, 1, memory_order_relaxed);
    }
}

void* memcpy(void* d, const void* s, size_t n)
{
    if (!real_memcpy) {
        resolve();
        if (!real_memcpy)
            return slow_move(d, s, n);
    }
    count_copy(n);
    return real_memcpy(d, s, n);
}

void* memmove(void* d, const void* s, size_t n)
{
    if (!real_memmove) {
        resolve();
        if (!real_memmove)
            return slow_move(d, s, n);
    }
    count_copy(n);
    return real_memmove(d, s, n);
}

void* mempcpy(void* d, const void* s, size_t n)
{
    if (!real_mempcpy) {
        resolve();
        if (!real_mempcpy)
            return (char*)slow_move(d, s, n) + n;
    }
    count_copy(n);
    return real_mempcpy(d, s, n);
}

void* __memcpy_chk(void* d, const void* s, size_t n, size_t dn)
{
    if (!real_memcpy_chk) {
        resolve();
        if (!real_memcpy_chk)
            return slow_move(d, s, n);
    }
    count_copy(n);
    return real_memcpy_chk(d, s, n, dn);
}

void* __memmove_chk(void* d, const void* s, size_t n, size_t dn)
{
    if (!real_memmove_chk) {
        resolve();
        if (!real_memmove_chk)
            return slow_move(d, s, n);
    }
    count_copy(n);
    return real_memmove_chk(d, s, n, dn);
}

ssize_t recv(int fd, void* buf, size_t len, int flags)
{
    if (!real_recv)
        resolve();
    const ssize_t n = real_recv(fd, buf, len, flags);
    count_recv(n);
    return n;
}

ssize_t
recvfrom(int fd, void* buf, size_t len, int flags, struct sockaddr* a, socklen_t* al)
{
    if (!real_recvfrom)
        resolve();
    const ssize_t n = real_recvfrom(fd, buf, len, flags, a, al);
    count_recv(n);
    return n;
}

ssize_t recvmsg(int fd, struct msghdr* m, int flags)
{
    if (!real_recvmsg)
        resolve();
    const ssize_t n = real_recvmsg(fd, m, flags);
    count_recv(n);
    return n;
}

int recvmmsg(int fd, struct mmsghdr* v, unsigned int vlen, int flags, struct timespec* t)
{
    if (!real_recvmmsg)
        resolve();
    const int n = real_recvmmsg(fd, v, vlen, flags, t);
    for (int i = 0; i < n; i++)
        count_recv(v[i].msg_len);
    return n;
}

/* Forget what was counted so far (call it when the stream starts: imports and set-up
 * copy too, and are not what a sample costs). */
void copycount_reset(void)
{
    const int n = atomic_load(&record_count);
    for (int i = 0; i < n && i < MAX_THREADS; i++) {
        atomic_store(&records[i].copy_bytes, 0);
        atomic_store(&records[i].copy_calls, 0);
        atomic_store(&records[i].recv_bytes, 0);
        atomic_store(&records[i].recv_calls, 0);
    }
}

void copycount_dump(void)
{
    if (atomic_exchange(&dumped, 1))
        return;
    const char* path = getenv("COPYCOUNT_OUT");
    FILE* f = path ? fopen(path, "w") : NULL;
    if (!f)
        return;
    fprintf(f, "tid,thread,copy_bytes,copy_calls,recv_bytes,recv_calls\n");
    const int n = atomic_load(&record_count);
    for (int i = 0; i < n && i < MAX_THREADS; i++) {
        struct thread_record* r = &records[i];
        fprintf(f,
                "%d,%s,%llu,%llu,%llu,%llu\n",
                r->tid,
                r->name,
                (unsigned long long)atomic_load(&r->copy_bytes),
                (unsigned long long)atomic_load(&r->copy_calls),
                (unsigned long long)atomic_load(&r->recv_bytes),
                (unsigned long long)atomic_load(&r->recv_calls));
    }
    fclose(f);
}

__attribute__((destructor)) static void at_exit(void) { copycount_dump(); }
