#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""The GRC blocks (grc/*.block.yml) against the blocks they make: every block is built
the way a generated flowgraph builds it (GRC renders the yml's Python make template with
the default parameters, and this test runs that code), and its real ports must be the
ports the yml declares, so GRC never offers a connection the block lacks nor hides one
it has. Also: ids unique (here and against GNU Radio's own blocks), a documentation tab
that names the ports and a docs file, and a C++ template wherever the Python template
makes a C++ block."""

import glob
import os
import re
import tempfile

import pmt
import yaml

from gnuradio import gr, gr_unittest

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GRC_DIR = os.path.join(SRC, "grc")
YMLS = sorted(glob.glob(os.path.join(GRC_DIR, "*.block.yml")))
ITEM_SIZE = {"complex": 8, "sc16": 4, "sc8": 2}
# Every block has this input; GRC does not show it.
HIDDEN_PORTS = {"system"}


def load_platform():
    # Our blocks from the source tree, GNU Radio's from the system: as GRC loads them
    # for a user with GRC_BLOCKS_PATH set (README.md, "Use an installed copy").
    os.environ["GRC_BLOCKS_PATH"] = GRC_DIR
    from gnuradio.grc.core.platform import Platform
    platform = Platform(name="qa_grc_blocks", prefs=gr.prefs(), version=gr.version(),
                        version_parts=(gr.major_version(), gr.api_version(),
                                       gr.minor_version()))
    platform.build_library()
    return platform


def port_names(ports):
    return {pmt.symbol_to_string(pmt.vector_ref(ports, i))
            for i in range(pmt.length(ports))}


class hier_ports_recorded:
    """A Python hier block's message ports: GNU Radio keeps them in a list it does not
    expose, so record what the block registers while it is built."""

    def __enter__(self):
        self.ins, self.outs = set(), set()
        self.saved = (gr.hier_block2.message_port_register_hier_in,
                      gr.hier_block2.message_port_register_hier_out)
        record_in, record_out = self.saved

        def register_in(block, name):
            self.ins.add(name)
            return record_in(block, name)

        def register_out(block, name):
            self.outs.add(name)
            return record_out(block, name)
        gr.hier_block2.message_port_register_hier_in = register_in
        gr.hier_block2.message_port_register_hier_out = register_out
        return self

    def __exit__(self, *exc):
        (gr.hier_block2.message_port_register_hier_in,
         gr.hier_block2.message_port_register_hier_out) = self.saved


class qa_grc_blocks(gr_unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.ymls = {path: yaml.safe_load(open(path)) for path in YMLS}
        cls.platform = load_platform()
        cls.tmp = tempfile.TemporaryDirectory(prefix="qa_grc_blocks.")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def grc_block(self, block_id):
        """The block as GRC sees it, defaults as the yml gives them."""
        fg = self.platform.make_flow_graph()
        block = fg.new_block(block_id)
        block.params["id"].set_value("blk")
        if "path" in block.params:  # a file to write: the default is empty
            block.params["path"].set_value(os.path.join(self.tmp.name, "rec"))
        fg.rewrite()
        return block

    def build(self, block):
        """Run the Python a generated flowgraph runs for this block: its imports, then
        self.<id> = <make>. The parameters' defaults may name the flowgraph's usual
        variable samp_rate."""
        class flowgraph:
            pass
        scope = {"self": flowgraph(), "samp_rate": 1e6}
        exec(block.templates.render("imports"), scope)
        exec("self.blk = " + block.templates.render("make"), scope)
        return scope["self"].blk

    def test_001_every_file_loads_with_a_unique_id(self):
        self.assertGreaterEqual(len(YMLS), 4, "grc/*.block.yml went missing")
        ids = [d["id"] for d in self.ymls.values()]
        self.assertEqual(len(ids), len(set(ids)), "duplicate block ids: %s" % ids)
        for path, d in self.ymls.items():
            self.assertEqual(os.path.basename(path), d["id"] + ".block.yml",
                             "the file name must be the block id")
            self.assertTrue(d["id"].startswith("rdma_"), path)
            self.assertEqual(d.get("category"), "[RDMA]", path)
            # GRC loaded it (a yml it rejects is not in the library), and it is ours,
            # not one of GNU Radio's with the same id.
            self.assertIn(d["id"], self.platform.blocks, path)
            stock = os.path.join(gr.prefix(), "share/gnuradio/grc/blocks",
                                 d["id"] + ".block.yml")
            self.assertFalse(os.path.exists(stock), "%s clashes with %s" % (path, stock))

    def test_002_documentation_names_ports_and_docs(self):
        for path, d in self.ymls.items():
            doc = d.get("documentation", "")
            self.assertGreater(len(doc), 200, "%s: no documentation tab" % path)
            self.assertRegex(doc, r"docs/[a-z-]+\.md", "%s: no docs file named" % path)
            self.assertIn("Ports", doc, path)
            for port in d.get("inputs", []) + d.get("outputs", []):
                if port["domain"] == "message":
                    self.assertIn(port["id"], doc,
                                  "%s: port %s not documented" % (path, port["id"]))
            self.assertRegex(doc, r"\btags?\b|\bTags\b", "%s: the tags it emits (or none)"
                             % path)

    def test_003_ports_declared_are_the_block_ports(self):
        for path, d in self.ymls.items():
            block = self.grc_block(d["id"])
            with hier_ports_recorded() as hier:
                blk = self.build(block)
            if isinstance(blk, gr.hier_block2):
                real_in, real_out = hier.ins, hier.outs
                for name in real_in:
                    self.assertTrue(blk._impl.message_port_is_hier_in(pmt.intern(name)))
            else:
                real_in = port_names(blk.message_ports_in()) - HIDDEN_PORTS
                real_out = port_names(blk.message_ports_out())
            with self.subTest(block=d["id"]):
                declared_in = {p.key for p in block.sinks if p.domain == "message"}
                declared_out = {p.key for p in block.sources if p.domain == "message"}
                self.assertEqual(declared_in, real_in, "%s: message inputs" % path)
                self.assertEqual(declared_out, real_out, "%s: message outputs" % path)
                for ports, signature in ((block.sinks, blk.input_signature()),
                                         (block.sources, blk.output_signature())):
                    streams = [p for p in ports if p.domain == "stream"]
                    self.assertEqual(len(streams), signature.max_streams()
                                     if signature.max_streams() >= 0 else len(streams),
                                     "%s: stream count" % path)
                    self.assertGreaterEqual(len(streams), signature.min_streams(), path)
                    for i, p in enumerate(streams):
                        self.assertEqual(ITEM_SIZE[p.dtype],
                                         signature.sizeof_stream_item(i),
                                         "%s: item size of stream %d" % (path, i))
            del blk

    def test_004_cpp_template_for_every_cpp_block(self):
        for path, d in self.ymls.items():
            block = self.grc_block(d["id"])
            blk = self.build(block)
            # A C++ block reaches Python through the pybind11 module; a block written in
            # Python (a hier block) has no C++ to generate.
            is_cpp = type(blk).__module__.endswith("_python")
            del blk
            name = d["id"][len("rdma_"):]
            with self.subTest(block=d["id"]):
                if not is_cpp:
                    self.assertFalse("cpp_templates" in d,
                                     "%s: cpp_templates for a Python block" % path)
                    self.assertNotIn("cpp", d["flags"], path)
                    self.assertIn("Python only", d["documentation"], path)
                    continue
                self.assertIn("cpp", d["flags"], path)
                self.assertTrue("cpp_templates" in d, "%s: no cpp_templates" % path)
                cpp = d["cpp_templates"]
                self.assertIn("#include <gnuradio/rdma/%s.h>" % name, cpp["includes"])
                self.assertTrue(os.path.exists(
                    os.path.join(SRC, "include/gnuradio/rdma/%s.h" % name)), path)
                self.assertIn("gr::rdma::%s::sptr" % name, cpp["declarations"])
                self.assertIn("gnuradio-rdma", cpp["packages"])
                self.assertIn("gnuradio::gnuradio-rdma", cpp["link"])
                make = block.cpp_templates.render("make")
                self.assertRegex(make, r"gr::rdma::%s::make\(" % re.escape(name))
                # As many callbacks as the Python template: a slider that retunes in
                # Python retunes in C++ too.
                self.assertEqual(len(cpp.get("callbacks", [])),
                                 len(d["templates"].get("callbacks", [])), path)

    def test_005_rx_source_default_is_a_tone(self):
        # What a user drops in a flowgraph should show a line on a spectrum at once: a
        # tone, not the ramp (which looks like noise).
        d = yaml.safe_load(open(os.path.join(GRC_DIR, "rdma_rx_source.block.yml")))
        args = next(p for p in d["parameters"] if p["id"] == "args")["default"]
        self.assertIn("signal=tone", args)

    def test_006_rx_source_wire_format(self):
        # Wire Format (gr-uhd's otw_format) reaches the block in Python and in C++: the
        # default keeps the output's format (zero copy), another converts.
        for otw, out_type, want in (("same", "fc32", ("fc32", "fc32")),
                                    ("sc16", "fc32", ("fc32", "sc16")),
                                    ("sc8", "sc16", ("sc16", "sc8"))):
            with self.subTest(otw=otw, type=out_type):
                block = self.grc_block("rdma_rx_source")
                block.params["otw"].set_value(otw)
                block.params["type"].set_value(out_type)
                block.params["args"].set_value("'type=emu,signal=ramp'")
                block.rewrite()
                blk = self.build(block)
                self.assertEqual((blk.cpu_format(), blk.otw_format()), want)
                out = [p for p in block.sources if p.domain == "stream"][0]
                self.assertEqual(ITEM_SIZE[out.dtype],
                                 blk.output_signature().sizeof_stream_item(0))
                del blk
                # The C++ generator turns the Python quotes into C++ ones (translations).
                make = block.cpp_templates.render("make")
                self.assertIn("'%s');" % ("" if otw == "same" else otw), make)

    def test_007_device_controller_settings(self):
        # Controller Policy and Period reach the device in Python and in C++; their
        # defaults (Leave as is, 0) leave it alone. docs/links.md, "Setting the
        # controller".
        block = self.grc_block("rdma_device")
        self.assertNotIn("set_ctrl_", block.templates.render("make"))
        self.assertNotIn("set_ctrl_", block.cpp_templates.render("make"))
        block.params["nchan"].set_value("0")
        block.params["args"].set_value("'type=emu,name=qa_grc_ctrl'")
        block.params["ctrl_policy"].set_value("shortest_rtt")
        block.params["ctrl_period"].set_value("0.002")
        block.rewrite()
        blk = self.build(block)
        self.assertEqual((blk.get_ctrl_policy(), blk.get_ctrl_period()),
                         ("shortest_rtt", 0.002))
        del blk
        make = block.cpp_templates.render("make")
        self.assertIn('this->blk->set_ctrl_policy("shortest_rtt");', make)
        self.assertIn("this->blk->set_ctrl_period(0.002);", make)


if __name__ == "__main__":
    gr_unittest.run(qa_grc_blocks)
