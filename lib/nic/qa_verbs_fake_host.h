/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_NIC_QA_VERBS_FAKE_HOST_H
#define INCLUDED_RDMA_NIC_QA_VERBS_FAKE_HOST_H

// A fake host for the logic tests of the verbs backend and gr-rdma-doctor: a temporary
// directory with the sysfs, procfs, /etc and /lib/modules files they read, laid out as
// Linux 6.1 has them for rxe (checked against the rxe guest).

#include <cppunit/extensions/HelperMacros.h>
#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace qa_verbs {

class fake_host
{
public:
    fake_host()
    {
        char dir[] = "/tmp/qa_verbs_XXXXXX";
        CPPUNIT_ASSERT(::mkdtemp(dir) != nullptr);
        d_root = dir;
    }
    ~fake_host()
    {
        std::error_code ec;
        std::filesystem::remove_all(d_root, ec);
    }
    fake_host(const fake_host&) = delete;
    fake_host& operator=(const fake_host&) = delete;

    const std::string& root() const { return d_root; }
    std::string sys() const { return d_root + "/sys"; }
    std::string proc() const { return d_root + "/proc"; }
    std::string etc() const { return d_root + "/etc"; }
    std::string modules() const { return d_root + "/lib/modules"; }

    //! Write \p text (plus a newline, as sysfs does) to root/\p path.
    void write(const std::string& path, const std::string& text, bool newline = true)
    {
        const std::filesystem::path p = d_root + "/" + path;
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p) << text << (newline ? "\n" : "");
    }
    void mkdir(const std::string& path)
    {
        std::filesystem::create_directories(d_root + "/" + path);
    }

    //! A port of an RDMA device with its state files (and an empty GID table).
    void add_port(const std::string& dev,
                  unsigned port,
                  const std::string& state = "4: ACTIVE",
                  const std::string& link_layer = "Ethernet")
    {
        const std::string dir = port_dir(dev, port);
        write(dir + "/state", state);
        write(dir + "/phys_state", state == "4: ACTIVE" ? "5: LinkUp" : "3: Disabled");
        write(dir + "/link_layer", link_layer);
    }
    //! GID table entry \p index; an empty \p type leaves the type file out (an unused
    //! slot, whose type the kernel refuses to read).
    void add_gid(const std::string& dev,
                 unsigned port,
                 unsigned index,
                 const std::string& gid,
                 const std::string& type,
                 const std::string& netdev)
    {
        const std::string dir = port_dir(dev, port);
        const std::string i = std::to_string(index);
        write(dir + "/gids/" + i, gid);
        if (!type.empty())
            write(dir + "/gid_attrs/types/" + i, type);
        if (!netdev.empty())
            write(dir + "/gid_attrs/ndevs/" + i, netdev);
    }
    //! rxe0 on veth0 as the guest has it: GID 0 link-local v1, 1 IPv4 v2, 2 IPv4 v1,
    //! 3 link-local v2, 4 unused.
    void add_rxe(const std::string& dev = "rxe0",
                 const std::string& netdev = "veth0",
                 const std::string& ipv4_tail = "c000:0201") // 192.0.2.1
    {
        add_port(dev, 1);
        const std::string ll = "fe80:0000:0000:0000:b8a1:4aff:fe2e:9c01";
        const std::string v4 = "0000:0000:0000:0000:0000:ffff:" + ipv4_tail;
        add_gid(dev, 1, 0, ll, "IB/RoCE v1", netdev);
        add_gid(dev, 1, 1, v4, "RoCE v2", netdev);
        add_gid(dev, 1, 2, v4, "IB/RoCE v1", netdev);
        add_gid(dev, 1, 3, ll, "RoCE v2", netdev);
        add_gid(dev, 1, 4, "0000:0000:0000:0000:0000:0000:0000:0000", "", "");
    }

    std::string port_dir(const std::string& dev, unsigned port) const
    {
        return "sys/class/infiniband/" + dev + "/ports/" + std::to_string(port);
    }

private:
    std::string d_root;
};

} // namespace qa_verbs

#endif
