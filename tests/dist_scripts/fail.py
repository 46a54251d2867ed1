"""Rank 1 fails (an exception, or sys.exit with argv[1] as the code); rank 0 waits in a
barrier that would never end. The whole job must exit non-zero promptly."""
import sys
import time

import ember.distributed as dist

dist.init_process_group("gloo")
if dist.get_rank() == 1:
    time.sleep(0.2)
    if len(sys.argv) > 1:
        sys.exit(int(sys.argv[1]))
    raise ValueError("rank 1 failed on purpose")
dist.barrier()
time.sleep(60)
