#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that the YNL spec and the uapi header describe the same ABI.

Documentation/netlink/specs/rmem.yaml and include/uapi/linux/rmem.h are
both written by hand.  This script derives from the spec the C names and
values that YNL's code generator would give them (see the kernel's
Documentation/userspace-api/netlink/c-code-gen.rst) and compares them
with the header's #defines and enums: the family's name, version and
multicast groups, the constants, the enums of definitions, one enum per
attribute set and the command enum.  A command documented "(admin)" in
the header must have the admin-perm flag in the spec, and only those.
It also checks that the spec's own references (nested attribute sets,
attribute lists of operations, notifications, enums) resolve.

Exit status 0 and "check-spec: ok (N commands, M attributes)", or 1 with
one line per difference.
"""

import argparse
import os
import re
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEC = os.path.join(ROOT, 'Documentation/netlink/specs/rmem.yaml')
HEADER = os.path.join(ROOT, 'include/uapi/linux/rmem.h')


def c_upper(*parts):
    """C name of a #define or enum member: RMEM_A_SERVER_NAME."""
    return '_'.join(parts).upper().replace('-', '_')


def c_lower(*parts):
    """C name of an enum type: rmem_a_server."""
    return '_'.join(parts).lower().replace('-', '_')


class Header:
    """The #defines, enums and kernel-doc of enum members of a C header."""

    def __init__(self, text):
        self.defines = {}       # name -> value text, comments removed
        self.enums = {}         # enum name -> [(member, value)]
        self.docs = {}          # member -> kernel-doc text
        code = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
        code = re.sub(r'//[^\n]*', '', code)
        for m in re.finditer(r'^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]*([^\n]*)$',
                             code, re.M):
            self.defines[m.group(1)] = m.group(2).strip()
        for m in re.finditer(r'\benum\s+(\w+)\s*\{(.*?)\}\s*;', code, re.S):
            self.enums[m.group(1)] = self._members(m.group(1), m.group(2))
        for m in re.finditer(r'/\*\*(.*?)\*/', text, re.S):
            self._kernel_doc(m.group(1))

    @staticmethod
    def _members(name, body):
        values = {}
        members = []
        nxt = 0
        for item in body.split(','):
            item = item.strip()
            if not item:
                continue
            m = re.fullmatch(r'(\w+)\s*(?:=\s*(.+))?', item, re.S)
            if not m:
                raise ValueError(f'enum {name}: cannot parse "{item}"')
            if m.group(2) is not None:
                nxt = Header._eval(name, m.group(2), values)
            values[m.group(1)] = nxt
            members.append((m.group(1), nxt))
            nxt += 1
        return members

    @staticmethod
    def _eval(name, expr, values):
        """An enum initializer: a number or a member, plus or minus one."""
        def term(tok):
            if tok in values:
                return values[tok]
            return int(tok.rstrip('uUlL'), 0)
        m = re.fullmatch(r'\s*(\w+)\s*(?:([-+])\s*(\w+))?\s*', expr)
        try:
            if not m:
                raise ValueError
            val = term(m.group(1))
            if m.group(2):
                val += term(m.group(3)) * (1 if m.group(2) == '+' else -1)
            return val
        except ValueError:
            raise ValueError(f'enum {name}: cannot evaluate "{expr.strip()}"')

    def _kernel_doc(self, block):
        member = None
        for line in block.splitlines():
            line = re.sub(r'^\s*\*?', '', line).rstrip()
            m = re.match(r'\s*@(\w+):\s*(.*)', line)
            if m:
                member = m.group(1)
                self.docs[member] = m.group(2)
            elif member and line.strip() and line[:1] in ' \t':
                self.docs[member] += ' ' + line.strip()
            else:
                member = None

    def enum_with(self, member):
        """Name of the enum that has @member, or None."""
        for name, members in self.enums.items():
            if any(m == member for m, _ in members):
                return name
        return None


class Checker:
    def __init__(self, spec, header):
        self.spec = spec
        self.hdr = header
        self.errors = []
        self.family = spec['name']
        self.covered = set()    # header enums matched by the spec

    def err(self, msg):
        self.errors.append(msg)

    # -- globals ------------------------------------------------------

    def define(self, name, want, what):
        got = self.hdr.defines.get(name)
        if got is None:
            self.err(f'{what}: #define {name} missing from the header')
            return
        if isinstance(want, str):
            ok = got == f'"{want}"'
            want = f'"{want}"'
        else:
            try:
                ok = int(got.rstrip('uUlL'), 0) == want
            except ValueError:
                ok = False
        if not ok:
            self.err(f'{what}: {want} in the spec, {name} is {got} in the header')

    def check_family(self):
        fam = self.family
        self.define(self.spec.get('c-family-name', c_upper(fam, 'family-name')),
                    fam, 'family name')
        self.define(self.spec.get('c-version-name',
                                  c_upper(fam, 'family-version')),
                    self.spec.get('version', 1), 'family version')
        known = {self.spec.get('c-family-name', c_upper(fam, 'family-name')),
                 self.spec.get('c-version-name', c_upper(fam, 'family-version'))}
        groups = self.spec.get('mcast-groups', {}).get('list', [])
        for grp in groups:
            name = grp.get('c-define-name', c_upper(fam, 'mcgrp', grp['name']))
            known.add(name)
            self.define(name, grp['name'], f'multicast group "{grp["name"]}"')
        for d in self.spec.get('definitions', []):
            if d['type'] == 'const':
                name = c_upper(fam, d['name'])
                known.add(name)
                self.define(name, d['value'], f'constant "{d["name"]}"')
        guard = re.compile(r'^_.*_H_?$')
        for name in self.hdr.defines:
            if name.startswith(c_upper(fam) + '_') and name not in known:
                self.err(f'#define {name} of the header is not in the spec '
                         '(constant or multicast group)')
            elif not guard.match(name) and not name.startswith(c_upper(fam)):
                self.err(f'#define {name} of the header is not in the spec')

    # -- enums --------------------------------------------------------

    def compare(self, what, enum, want):
        """Compare [(member, value)] @want with header enum @enum."""
        self.covered.add(enum)
        have = self.hdr.enums[enum]
        have_d = dict(have)
        want_d = dict(want)
        for name, val in want:
            if name not in have_d:
                self.err(f'{what}: {name} (= {val}) is in the spec, '
                         f'not in enum {enum}')
            elif have_d[name] != val:
                self.err(f'{what}: {name} is {val} in the spec, '
                         f'{have_d[name]} in enum {enum}')
        for name, val in have:
            if name not in want_d:
                self.err(f'{what}: {name} (= {val}) of enum {enum} '
                         'is not in the spec')

    def find_enum(self, what, enum_name, count_member):
        """The header enum named @enum_name, or the one with @count_member."""
        if enum_name:
            if enum_name in self.hdr.enums:
                return enum_name
            self.err(f'{what}: enum {enum_name} missing from the header')
            return None
        enum = self.hdr.enum_with(count_member)
        if not enum:
            self.err(f'{what}: no enum with {count_member} in the header')
        return enum

    @staticmethod
    def counted(members, pfx, cnt, mx):
        """Members without UNSPEC (= 0) and the count and max members."""
        return [(m, v) for m, v in members
                if m not in (cnt, mx) and not (m == pfx + 'UNSPEC' and v == 0)]

    def check_definitions(self):
        fam = self.family
        for d in self.spec.get('definitions', []):
            if d['type'] not in ('enum', 'flags'):
                continue
            what = f'{d["type"]} "{d["name"]}"'
            enum = d.get('enum-name', c_lower(fam, d['name']))
            pfx = c_upper(d.get('name-prefix', f'{fam}-{d["name"]}-'))
            if enum not in self.hdr.enums:
                self.err(f'{what}: enum {enum} missing from the header')
                continue
            want = []
            val = d.get('value-start', 0)
            for i, entry in enumerate(d.get('entries', [])):
                if isinstance(entry, str):
                    entry = {'name': entry}
                if d['type'] == 'flags':
                    val = entry.get('value', i + d.get('value-start', 0))
                    want.append((pfx + c_upper(entry['name']), 1 << val))
                else:
                    val = entry.get('value', val)
                    want.append((pfx + c_upper(entry['name']), val))
                    val += 1
            cnt, mx = '__' + pfx + 'MAX', pfx + 'MAX'
            members = [(m, v) for m, v in self.hdr.enums[enum]
                       if m not in (cnt, mx)]
            self.hdr.enums[enum] = members
            self.compare(what, enum, want)

    def check_attribute_sets(self):
        fam = self.family
        total = 0
        for aset in self.spec.get('attribute-sets', []):
            if 'subset-of' in aset:
                continue
            name = aset['name']
            what = f'attribute set "{name}"'
            default = f'{fam}-a' if name == fam else f'{fam}-a-{name}'
            pfx = c_upper(aset.get('name-prefix', default + '-'))
            cnt = aset.get('attr-cnt-name', '__' + pfx + 'MAX')
            mx = aset.get('attr-max-name', pfx + 'MAX')
            total += len(aset['attributes'])
            enum = self.find_enum(what, aset.get('enum-name') and
                                  c_lower(aset['enum-name']), c_upper(cnt))
            if not enum:
                continue
            want = []
            val = 1
            for attr in aset['attributes']:
                val = attr.get('value', val)
                want.append((pfx + c_upper(attr['name']), val))
                val += 1
            self.hdr.enums[enum] = self.counted(self.hdr.enums[enum], pfx,
                                                c_upper(cnt), c_upper(mx))
            self.compare(what, enum, want)
        return total

    def check_operations(self):
        fam = self.family
        ops = self.spec.get('operations', {})
        pfx = c_upper(ops.get('name-prefix', f'{fam}-cmd-'))
        cnt = ops.get('cmd-cnt-name', '__' + pfx + 'MAX')
        mx = ops.get('cmd-max-name', pfx + 'MAX')
        enum = self.find_enum('operations', ops.get('enum-name') and
                              c_lower(ops['enum-name']), c_upper(cnt))
        want = []
        val = 1
        for op in ops.get('list', []):
            val = op.get('value', val)
            want.append((pfx + c_upper(op['name']), val))
            val += 1
            c_name = want[-1][0]
            admin = 'admin-perm' in op.get('flags', [])
            doc_admin = '(admin)' in self.hdr.docs.get(c_name, '')
            if doc_admin and not admin:
                self.err(f'operation "{op["name"]}": {c_name} is documented '
                         '"(admin)" in the header, but has no admin-perm flag')
            elif admin and not doc_admin and c_name in self.hdr.docs:
                self.err(f'operation "{op["name"]}": admin-perm in the spec, '
                         f'but {c_name} is not documented "(admin)"')
        if enum:
            self.hdr.enums[enum] = self.counted(self.hdr.enums[enum], pfx,
                                                c_upper(cnt), c_upper(mx))
            self.compare('operations', enum, want)
        return len(ops.get('list', []))

    def check_uncovered(self):
        for enum in self.hdr.enums:
            if enum not in self.covered:
                self.err(f'enum {enum} of the header is not in the spec')

    # -- references inside the spec -----------------------------------

    def check_references(self):
        sets = {s['name']: s for s in self.spec.get('attribute-sets', [])}
        enums = {d['name'] for d in self.spec.get('definitions', [])
                 if d['type'] in ('enum', 'flags')}
        groups = {g['name'] for g in
                  self.spec.get('mcast-groups', {}).get('list', [])}
        for s in sets.values():
            for attr in s['attributes']:
                ref = attr.get('nested-attributes')
                where = f'attribute "{s["name"]}.{attr["name"]}"'
                if ref and ref not in sets:
                    self.err(f'{where}: nested-attributes "{ref}" is not an '
                             'attribute set')
                if attr.get('type') == 'nest' and not ref:
                    self.err(f'{where}: a nest without nested-attributes')
                if 'enum' in attr and attr['enum'] not in enums:
                    self.err(f'{where}: enum "{attr["enum"]}" is not defined')
        ops = {op['name']: op for op in
               self.spec.get('operations', {}).get('list', [])}
        for op in ops.values():
            where = f'operation "{op["name"]}"'
            if 'notify' in op and op['notify'] not in ops:
                self.err(f'{where}: notify "{op["notify"]}" is not an '
                         'operation')
            if 'mcgrp' in op and op['mcgrp'] not in groups:
                self.err(f'{where}: mcgrp "{op["mcgrp"]}" is not a '
                         'multicast group')
            if ('notify' in op or 'event' in op) and 'mcgrp' not in op:
                self.err(f'{where}: a notification without mcgrp')
            aset = op.get('attribute-set')
            if aset is None:
                continue
            if aset not in sets:
                self.err(f'{where}: attribute-set "{aset}" is not defined')
                continue
            names = {a['name'] for a in sets[aset]['attributes']}
            for kind in ('do', 'dump'):
                for msg in ('request', 'reply'):
                    attrs = op.get(kind, {}).get(msg, {}).get('attributes', [])
                    for a in attrs:
                        if a not in names:
                            self.err(f'{where}: {kind} {msg} attribute "{a}" '
                                     f'is not in set "{aset}"')

    def run(self):
        self.check_family()
        self.check_definitions()
        n_attrs = self.check_attribute_sets()
        n_ops = self.check_operations()
        self.check_uncovered()
        self.check_references()
        return n_ops, n_attrs


def shown(path):
    """@path relative to the repository if it is in it."""
    rel = os.path.relpath(os.path.abspath(path), ROOT)
    return path if rel.startswith('..') else rel


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--spec', default=SPEC, help='YNL spec (%(default)s)')
    ap.add_argument('--header', default=HEADER,
                    help='uapi header (%(default)s)')
    args = ap.parse_args()

    try:
        with open(args.spec) as f:
            spec = yaml.safe_load(f)
        with open(args.header) as f:
            header = Header(f.read())
    except (OSError, yaml.YAMLError, ValueError) as e:
        print(f'check-spec: {e}', file=sys.stderr)
        return 1

    checker = Checker(spec, header)
    try:
        n_ops, n_attrs = checker.run()
    except (KeyError, TypeError, AttributeError) as e:
        print(f'check-spec: malformed spec {args.spec}: {e!r}', file=sys.stderr)
        return 1
    for msg in checker.errors:
        print(f'check-spec: {msg}')
    if checker.errors:
        print(f'check-spec: {len(checker.errors)} difference(s) between '
              f'{shown(args.spec)} and {shown(args.header)}')
        return 1
    print(f'check-spec: ok ({n_ops} commands, {n_attrs} attributes)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
