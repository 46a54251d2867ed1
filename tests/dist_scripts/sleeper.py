"""Both ranks write their pid to argv[1]/pid{rank} and sleep: the test signals the launcher."""
import os
import sys
import time

import ember.distributed as dist

dist.init_process_group("gloo")
with open(os.path.join(sys.argv[1], f"pid{dist.get_rank()}"), "w") as f:
    f.write(str(os.getpid()))
time.sleep(120)
