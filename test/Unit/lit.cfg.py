# -*- Python -*-
# Runs the GoogleTest binaries of unittests/ as lit tests.
import os

import lit.formats

config.name = "TILETUNE-Unit"
config.suffixes = []
config.test_source_root = os.path.join(config.tiletune_obj_root, "unittests")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
for var in ("HOME", "TMPDIR", "OMP_NUM_THREADS"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
config.environment["TILETUNE_SOURCE_DIR"] = config.tiletune_src_root
