# usdt/fsp_abi_v2.h -> the header before call numbers (32-byte frames): for
# the Makefile's $(OUTPUT)/frame32, binaries built as with an older fsp.h.
/uint64_t call; \/\*/d
/f->call = ++s->calls;/d
/Enters pushed on this stack since its allocation/,/uint64_t calls;/d
s/"\.2byte 64, 40, 64, 0\\n"/".2byte 64, 32, 64, 0\\n"/
