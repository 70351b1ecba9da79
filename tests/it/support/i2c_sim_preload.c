/* A simulated module on a simulated i2c-dev adapter, for running the real `optics` binary
 * against a module where the machine has no I2C bus: LD_PRELOAD'ed, it makes the path in
 * OPTICS_SIM_I2C_DEV behave as /dev/i2c-N does (open, I2C_SLAVE, I2C_PEC, I2C_FUNCS, I2C_RDWR;
 * linux/i2c-dev.h, linux/i2c.h) in front of the module memory in OPTICS_SIM_I2C_MEMORY:
 * address 50h's lower page (128 bytes), then upper pages as (page number, 128 bytes)
 * records. Page select is byte 127 (SFF-8636); a page the module lacks is not selected
 * (the register reads back the page in force). Address 51h and others NACK (ENXIO). Every
 * other file and ioctl goes to libc. Test-only: built by the test that uses it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define I2C_SLAVE 0x0703
#define I2C_SLAVE_FORCE 0x0706
#define I2C_FUNCS 0x0705
#define I2C_RDWR 0x0707
#define I2C_PEC 0x0708
#define I2C_M_RD 0x0001
#define I2C_FUNC_I2C 0x00000001UL

struct i2c_msg { uint16_t addr; uint16_t flags; uint16_t len; uint8_t *buf; };
struct i2c_rdwr_ioctl_data { struct i2c_msg *msgs; uint32_t nmsgs; };

#define MAX_FDS 16
#define MAX_PAGES 256
static int fds[MAX_FDS];
static uint16_t addrs[MAX_FDS];
static int nfds;
static uint8_t lower[128];
static uint8_t upper[MAX_PAGES][128];
static int has_page[MAX_PAGES];
static int loaded;
static uint8_t offset;

static void load(void) {
    if (loaded) return;
    loaded = 1;
    const char *path = getenv("OPTICS_SIM_I2C_MEMORY");
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f) return;
    if (fread(lower, 1, 128, f) == 128) {
        uint8_t page;
        while (fread(&page, 1, 1, f) == 1 && fread(upper[page], 1, 128, f) == 128) has_page[page] = 1;
    }
    fclose(f);
    lower[127] = 0;
}

static int is_sim_path(const char *path) {
    const char *dev = getenv("OPTICS_SIM_I2C_DEV");
    return dev && path && strcmp(path, dev) == 0;
}

/* The slot of a simulated fd, or -1. */
static int sim_fd(int fd) {
    for (int i = 0; i < nfds; i++) if (fds[i] == fd) return i;
    return -1;
}

static int open_sim(void) {
    static int (*real_open)(const char *, int, ...);
    if (!real_open) real_open = dlsym(RTLD_NEXT, "open");
    int fd = real_open("/dev/null", O_RDWR);
    if (fd >= 0 && nfds < MAX_FDS) fds[nfds++] = fd;
    load();
    return fd;
}

#define OPEN_WRAPPER(name)                                                  \
    int name(const char *path, int flags, ...) {                            \
        static int (*real)(const char *, int, ...);                         \
        if (!real) real = dlsym(RTLD_NEXT, #name);                          \
        if (is_sim_path(path)) return open_sim();                           \
        va_list ap; va_start(ap, flags); int mode = va_arg(ap, int); va_end(ap); \
        return real(path, flags, mode);                                     \
    }
OPEN_WRAPPER(open)
OPEN_WRAPPER(open64)

#define OPENAT_WRAPPER(name)                                                \
    int name(int dirfd, const char *path, int flags, ...) {                 \
        static int (*real)(int, const char *, int, ...);                    \
        if (!real) real = dlsym(RTLD_NEXT, #name);                          \
        if (is_sim_path(path)) return open_sim();                           \
        va_list ap; va_start(ap, flags); int mode = va_arg(ap, int); va_end(ap); \
        return real(dirfd, path, flags, mode);                              \
    }
OPENAT_WRAPPER(openat)
OPENAT_WRAPPER(openat64)

static uint8_t read_byte(uint8_t at) {
    if (at < 128) return lower[at];
    uint8_t page = lower[127];
    return has_page[page] ? upper[page][at - 128] : 0xff;
}

static void write_byte(uint8_t at, uint8_t v) {
    if (at == 127) {
        if (has_page[v]) lower[127] = v;
    } else if (at < 128) {
        lower[at] = v;
    }
}

static int transfer(uint16_t slave, struct i2c_rdwr_ioctl_data *d) {
    for (uint32_t i = 0; i < d->nmsgs; i++) {
        struct i2c_msg *m = &d->msgs[i];
        if ((m->addr ? m->addr : slave) != 0x50) { errno = ENXIO; return -1; }
        if (m->flags & I2C_M_RD) {
            for (uint16_t k = 0; k < m->len; k++) m->buf[k] = read_byte(offset++);
        } else if (m->len > 0) {
            offset = m->buf[0];
            for (uint16_t k = 1; k < m->len; k++) write_byte(offset++, m->buf[k]);
        }
    }
    return (int)d->nmsgs;
}

int ioctl(int fd, unsigned long req, ...) {
    static int (*real)(int, unsigned long, ...);
    if (!real) real = dlsym(RTLD_NEXT, "ioctl");
    va_list ap; va_start(ap, req); void *arg = va_arg(ap, void *); va_end(ap);
    int slot = sim_fd(fd);
    if (slot < 0) return real(fd, req, arg);
    switch (req) {
    case I2C_SLAVE: case I2C_SLAVE_FORCE: addrs[slot] = (uint16_t)(uintptr_t)arg; return 0;
    case I2C_PEC: return 0;
    case I2C_FUNCS: *(unsigned long *)arg = I2C_FUNC_I2C; return 0;
    case I2C_RDWR: return transfer(addrs[slot], (struct i2c_rdwr_ioctl_data *)arg);
    default: errno = ENOTTY; return -1;
    }
}
