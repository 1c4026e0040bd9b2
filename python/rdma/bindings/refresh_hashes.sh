#!/bin/sh
# After changing a public header, record its new hash in the binding file that wraps
# it (and update the binding itself): CMake refuses to configure with a stale hash.
cd "$(dirname "$0")" || exit 1
for f in *_python.cc; do
    header=$(sed -n 's/.*BINDTOOL_HEADER_FILE(\([^)]*\)).*/\1/p' "$f")
    [ -n "$header" ] || continue
    hash=$(md5sum "../../../include/gnuradio/rdma/$header" | cut -d' ' -f1)
    sed -i "s/BINDTOOL_HEADER_FILE_HASH([0-9a-f]*)/BINDTOOL_HEADER_FILE_HASH($hash)/" "$f"
done
