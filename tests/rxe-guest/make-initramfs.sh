#!/usr/bin/env bash
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Assemble the rxe guest's initramfs from what Debian installed on this machine
# (docs/rxe-guest.md): busybox-static, the kernel modules rxe needs from the
# linux-image package of the chosen kernel version, libibverbs with the rxe provider,
# iproute2's ip and rdma, the project's binaries named in the test list, and the shared
# libraries all of them load (ldd). Binaries keep their absolute paths, so the build
# tree's RUNPATHs and the test list's commands work unchanged in the guest.
#
# usage: make-initramfs.sh --out DIR --kernel-version VERSION --emulator PATH
#                          --tests LIST [--mode run|shell] [--extra PATH]...
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out="" kver="" emulator="" tests="" mode=run
extras=()
die() {
    echo "make-initramfs: $*" >&2
    exit 1
}
while [ $# -gt 0 ]; do
    case "$1" in
    --out) out=$2; shift 2 ;;
    --kernel-version) kver=$2; shift 2 ;;
    --emulator) emulator=$2; shift 2 ;;
    --tests) tests=$2; shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    --extra) extras+=("$2"); shift 2 ;;
    *) die "unknown argument $1" ;;
    esac
done
if [ -z "$out" ] || [ -z "$kver" ] || [ -z "$emulator" ] || [ -z "$tests" ]; then
    die "usage: $0 --out DIR --kernel-version VERSION --emulator PATH --tests LIST [--mode run|shell] [--extra PATH]..."
fi
[ -x "$emulator" ] || die "emulator $emulator is not built"
[ -f "$tests" ] || die "test list $tests does not exist"

moddir=/lib/modules/$kver
root=$out/root
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,var,etc/libibverbs.d,rxe-guest/modules.d}

# ---- kernel modules, dependencies first ------------------------------------------------
# Wanted: rxe and what it finds at run time (crc32_generic: rxe asks the crypto API for
# "crc32", and the guest has no modprobe to load it on demand), veth for the link pair.
# virtio_pci and 9p: the host's root, shared read-only, for host-root.sh.
wanted=(crc32_generic udp_tunnel ip6_udp_tunnel ib_core ib_uverbs rdma_rxe veth
    virtio_pci 9pnet_virtio 9p)
optional=" crc32_generic " # newer kernels call crc32_le() directly and have no such module
declare -A loaded=()
order=()

module_path() { # relative path of module $1 in modules.dep, or nothing
    awk -F: -v m="$1" '{ n = $1; sub(".*/", "", n); sub("\\.ko(\\.[a-z]+)?$", "", n);
                          gsub("-", "_", n); if (n == m) { print $1; exit } }' "$moddir/modules.dep"
}
add_module() {
    local name=${1//-/_} path deps dep
    [ -n "${loaded[$name]:-}" ] && return 0
    path=$(module_path "$name")
    if [ -z "$path" ]; then
        if grep -qE "/${name//_/[-_]}\.ko" "$moddir/modules.builtin" 2>/dev/null; then
            loaded[$name]=builtin
            return 0
        fi
        case "$optional" in *" $name "*)
            echo "make-initramfs: note: no module $name in $kver (not needed there)" >&2
            loaded[$name]=absent
            return 0 ;;
        esac
        die "kernel $kver has no module $name (modules.dep, modules.builtin)"
    fi
    loaded[$name]=module
    deps=$(awk -F: -v p="$path" '$1 == p { print $2; exit }' "$moddir/modules.dep")
    for dep in $deps; do
        dep=${dep##*/}
        add_module "${dep%%.ko*}"
    done
    case "$path" in
    *.ko) cp "$moddir/$path" "$root/rxe-guest/modules.d/$name.ko" ;;
    *.ko.xz) xz -dc "$moddir/$path" >"$root/rxe-guest/modules.d/$name.ko" ;;
    *.ko.zst) zstd -qdc "$moddir/$path" >"$root/rxe-guest/modules.d/$name.ko" ;;
    *.ko.gz) gzip -dc "$moddir/$path" >"$root/rxe-guest/modules.d/$name.ko" ;;
    *) die "unsupported module file $path" ;;
    esac
    order+=("$name")
}
for m in "${wanted[@]}"; do
    add_module "$m"
done
printf '%s\n' "${order[@]}" >"$root/rxe-guest/modules"

# ---- programs and their shared libraries ---------------------------------------------------
copy_file() { # copy $1 to the same path in the guest (the resolved file, not a link)
    local src=$1 dest=$root$1
    [ -e "$dest" ] && return 0
    mkdir -p "$(dirname "$dest")"
    cp -L "$src" "$dest"
}
copy_elf() { # copy a program or library and every library it loads
    local f=$1 lib
    copy_file "$f"
    # "libx.so => /path (0x...)", "/lib64/ld-linux-x86-64.so.2 (0x...)"; skip the vdso.
    for lib in $(ldd "$f" 2>/dev/null | grep -oE '/[^ )]+' || true); do
        copy_file "$lib"
    done
}
install_as() { # copy program $1 (closure included) and make it reachable as $2 in the guest
    copy_elf "$1"
    if [ "$1" != "$2" ]; then
        mkdir -p "$root$(dirname "$2")"
        ln -sf "$1" "$root$2"
    fi
}
find_program() { # first existing candidate, resolved
    local p
    for p in "$@"; do
        [ -x "$p" ] && { readlink -f "$p"; return 0; }
    done
    return 1
}

busybox=$(find_program /bin/busybox /usr/bin/busybox) || die "busybox not found (install busybox-static)"
cp -L "$busybox" "$root/bin/busybox"
if ldd "$root/bin/busybox" >/dev/null 2>&1; then
    copy_elf "$busybox" # a dynamic busybox works too, with its libraries
fi

ip=$(find_program /usr/bin/ip /bin/ip /usr/sbin/ip /sbin/ip) || die "ip not found (install iproute2)"
rdma=$(find_program /usr/bin/rdma /bin/rdma /usr/sbin/rdma /sbin/rdma) || die "rdma not found (install iproute2)"
install_as "$ip" /usr/bin/ip
install_as "$rdma" /usr/bin/rdma

# libibverbs loads providers named by /etc/libibverbs.d/*.driver from its own
# directory: only rxe's goes in.
provider=$(compgen -G '/usr/lib/*/libibverbs/librxe-rdmav*.so' | head -1 || true)
[ -n "$provider" ] || die "the rxe provider librxe-rdmav*.so is missing (install ibverbs-providers)"
copy_elf "$(readlink -f "$provider")"
[ "$(readlink -f "$provider")" = "$provider" ] || install_as "$(readlink -f "$provider")" "$provider"
cp /etc/libibverbs.d/rxe.driver "$root/etc/libibverbs.d/"

# Handy when debugging in the shell; not required.
for tool in /usr/bin/ibv_devinfo /usr/bin/ibv_devices; do
    [ -x "$tool" ] && install_as "$(readlink -f "$tool")" "$tool"
done

install_as "$(readlink -f "$emulator")" "$emulator"
echo "$emulator" >"$root/rxe-guest/emulator"
# Every absolute path in a test command that names an executable file goes in.
while read -r _ _ command; do
    for word in $command; do
        case "$word" in /*) if [ -f "$word" ] && [ -x "$word" ]; then install_as "$(readlink -f "$word")" "$word"; fi ;; esac
    done
done < <(grep -vE '^[[:space:]]*(#|$)' "$tests")
for extra in "${extras[@]}"; do
    [ -x "$extra" ] || die "extra program $extra does not exist"
    install_as "$(readlink -f "$extra")" "$extra"
done
cp "$tests" "$root/rxe-guest/tests.list"
echo "$mode" >"$root/rxe-guest/mode"
cp "$here/guest-init.sh" "$root/init"
cp "$here/host-root.sh" "$root/rxe-guest/host-root"
chmod 755 "$root/rxe-guest/host-root"
chmod 755 "$root/init"

(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$out/initrd.gz"
echo "make-initramfs: $out/initrd.gz ($(du -h "$out/initrd.gz" | cut -f1)), kernel $kver," \
    "modules: ${order[*]}"
