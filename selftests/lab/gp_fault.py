#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tell a user-space general protection fault that no x86 CPU can raise.

    gp_fault.py CONSOLE_LOG

For every "traps: COMM[PID] general protection fault ip:..." line of a
guest's kernel log, find the faulting instruction:

* from the "Code:" bytes of the register dump that print-fatal-signals
  adds (the byte in <> starts it), with the registers of that dump; or
* without a dump, from the host's copy of the binary (the guest maps the
  host's /), at the file offset 6.12 prints ("in NAME[OFFSET,...]").

In 64-bit mode an integer instruction raises #GP only for a non-canonical
address (or a segment override, a lock prefix, an alignment rule of SSE).
So a fault on an integer instruction with no memory operand, or whose
memory operand's address, computed from the dumped registers (or from
the faulting ip, for a %rip-relative one), is canonical, did not come
from the guest's code: QEMU's TCG got its state
wrong (Documentation/lab.rst, "Emulator faults").  Prints one line of
evidence per such fault and exits 0 if there was one, else exits 1.
"""

import os
import re
import subprocess
import sys
import tempfile

TRAP = re.compile(r'traps: (\S+)\[\d+\] general protection fault ip:([0-9a-f]+) '
                  r'.* in ([^\[/ ]+)\[(?:([0-9a-f]+),)?')
# integer instructions: #GP only from a non-canonical address
INTEGER = re.compile(r'^(mov[bwlq]?|movz[bw][wlq]|movs[bwl][wlq]|movslq|'
                     r'add[bwlq]?|sub[bwlq]?|and[bwlq]?|or[bwlq]?|xor[bwlq]?|'
                     r'cmp[bwlq]?|test[bwlq]?|inc[bwlq]?|dec[bwlq]?|nop[wl]?|'
                     r'endbr64|shl|shr|sar)$')
MEM = re.compile(r'^(-?0x[0-9a-f]+)?\((%[a-z0-9]+)?(?:,(%[a-z0-9]+)(?:,([1248]))?)?\)$')
LIBDIRS = ('/usr/lib/x86_64-linux-gnu', '/usr/bin', '/usr/sbin', '/usr/lib64')


def disasm(data):
    """The first instruction of @data: (mnemonic, operands) or None."""
    with tempfile.NamedTemporaryFile(suffix='.bin') as f:
        f.write(data)
        f.flush()
        out = subprocess.run(['objdump', '-D', '-b', 'binary', '-mi386:x86-64',
                              f.name], capture_output=True, text=True,
                             check=False).stdout
    for line in out.splitlines():
        m = re.match(r'^\s+0:\t[0-9a-f ]+\t(\S+)\s*(\S*)', line)
        if m:
            return m.group(1), m.group(2)
    return None


def from_binary(name, off):
    """The instruction at file offset @off of the host's @name."""
    path = next((os.path.join(d, name) for d in LIBDIRS
                 if os.path.isfile(os.path.join(d, name))), None)
    if not path:
        return None
    with open(path, 'rb') as f:
        f.seek(off)
        return disasm(f.read(16))


def regs_of(dump):
    regs = {}
    for m in re.finditer(r'\b(R[A-Z0-9]{2}): (?:[0-9a-f]{4}:)?([0-9a-f]{16})\b',
                         dump):
        regs[m.group(1).lower().replace('r0', 'r')] = int(m.group(2), 16)
    return regs


def canonical(addr):
    top = addr >> 47
    return top in (0, (1 << 17) - 1)


def judge(insn, regs, ip=None):
    """Why @insn, at @ip, cannot raise #GP with @regs, or None."""
    mnem, ops = insn
    if not INTEGER.match(mnem) or '%fs:' in ops or '%gs:' in ops:
        return None
    mems = [o for o in re.split(r',(?![^(]*\))', ops) if '(' in o]
    if not mems:
        return f'"{mnem} {ops}" has no memory operand'
    if len(mems) != 1:
        return None
    m = MEM.match(mems[0])
    if m and m.group(2) == '%rip' and not m.group(3) and ip is not None:
        # the next instruction's address plus the displacement: the
        # instruction is 1 to 15 bytes long, so both ends must be canonical
        disp = int(m.group(1) or '0', 16)
        lo, hi = ip + 1 + disp, ip + 15 + disp
        if not (canonical(lo & ((1 << 64) - 1)) and
                canonical(hi & ((1 << 64) - 1))):
            return None
        return (f'"{mnem} {ops}" at 0x{ip:016x} addresses '
                f'0x{lo:016x} to 0x{hi:016x}, canonical addresses')
    if not m or m.group(2) == '%rip' or regs is None:
        return None
    addr = int(m.group(1) or '0', 16)
    for reg, scale in ((m.group(2), 1), (m.group(3), int(m.group(4) or 1))):
        if reg:
            if reg[1:] not in regs:
                return None
            addr += regs[reg[1:]] * scale
    addr &= (1 << 64) - 1
    if not canonical(addr):
        return None
    return f'"{mnem} {ops}" addresses 0x{addr:016x}, a canonical address'


def main():
    with open(sys.argv[1], errors='replace') as f:
        lines = f.read().splitlines()
    found = 0
    for i, line in enumerate(lines):
        m = TRAP.search(line)
        if not m:
            continue
        comm, ip, name, off = m.groups()
        ip = int(ip, 16)
        # the dump of the same signal, if print-fatal-signals gave one
        dump = '\n'.join(lines[i + 1:i + 16])
        code = re.search(r'Code: ([0-9a-f <>]+)', dump)
        insn, regs = None, None
        if 'potentially unexpected fatal signal' in dump and code:
            words = code.group(1).split()
            start = next((k for k, w in enumerate(words) if w.startswith('<')),
                         None)
            if start is not None:
                insn = disasm(bytes(int(w.strip('<>'), 16)
                                    for w in words[start:]))
                regs = regs_of(dump)
        elif off:
            insn = from_binary(name, int(off, 16))
        why = judge(insn, regs, ip) if insn else None
        if why:
            print(f'{comm} got a general protection fault in {name}: {why}, '
                  'which cannot raise one')
            found += 1
    return 0 if found else 1


if __name__ == '__main__':
    sys.exit(main())
