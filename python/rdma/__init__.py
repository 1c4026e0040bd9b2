#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

'''
gr-rdma: SDR sample streaming by RDMA. The SDR writes samples straight into a ring
that is the GNU Radio buffer; the host never touches a packet.

Blocks: rx_source (zero-copy RDMA source), ramp_check (link test sink), sigmf_sink
(a SigMF recording with the losses annotated; sigmf_check validates one).
Without GNU Radio: rx_stream (numpy views of the ring), tx_stream (numpy views of
its free ring space, filled in place), process_cpu_by_role().
'''

# The pybind11 module is the package's substance; a failure to import it must be loud.
from .rdma_python import *  # noqa: F401,F403
