#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turn the kernel-doc comments of libregion's public headers into man pages.

Every public header (include/region/*.h) documents each call with a
kernel-doc block right before it:

    /**
     * name() - one-line summary.
     * @arg: what the argument is.
     *
     * Free description, in paragraphs.
     *
     * Context: locking and thread safety.
     * Return: the value and every error.
     */
    RG_API int name(...);       (or a documented static inline function)

Structures, enums and typedefs use "struct name - summary" (or enum,
typedef) and document their members with @member lines.

This script writes one section 3 page per documented function (NAME,
SYNOPSIS, ARGUMENTS, DESCRIPTION, CONTEXT, RETURN VALUE, ERRORS, NOTES, SEE
ALSO), one section 3type page per documented type, and the overview
pages with their generated list of calls filled in: those made from a
doc/api/<module>.md that names its page in a "<!-- man: ... -->" comment
(the module's one text, read on the web and in man alike), and those still
hand-written in doc/man, which name their header on a line
".\\" header: region/x.h". Calls of a header without an overview page
point to libregion(7). The EXAMPLES of every page can be written out as
programs (--examples) for the tests to build and run, and regionbench(1)
is made from the program's own --help texts (--regionbench).

Usage:
    kdoc2man.py [--version V] [--man DIR] [--outdir DIR] --list INCDIR
        print the file names that would be written, one a line
    kdoc2man.py [--version V] [--man DIR] --outdir DIR INCDIR
        write the pages (and warn about problems on stderr)
    kdoc2man.py [--man DIR] [--api DIR] --list-examples INCDIR
    kdoc2man.py [--man DIR] [--api DIR] --examples --outdir DIR INCDIR
        name or write the C programs of every page's EXAMPLES
    kdoc2man.py --regionbench EXE --summary TEXT --outdir DIR INCDIR
        write regionbench.1 from EXE --help, --list and COMMAND --help
    kdoc2man.py --check INCDIR
        report every problem and exit 1 if there is one: an RG_API
        function without a comment, a missing Context: or Return: (the
        latter for non-void functions), arguments and @lines that differ,
        a comment that names another function

Only the standard library is used, so any python3 runs it.
"""

import argparse
import errno
import glob
import os
import re
import sys

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
SECTIONS = ("context", "return", "returns")


class Doc:
    """One kernel-doc comment and the declaration that follows it."""

    def __init__(self, header, line):
        self.header = header  # "region/region.h"
        self.line = line  # line of the comment's first line
        self.kind = None  # "function", "macro", "struct", "enum", ...
        self.name = None
        self.summary = ""
        self.params = []  # [(name, text)]
        self.body = []  # paragraphs: (literal?, text)
        self.context = None
        self.ret = None
        self.decl = ""  # the declaration, whitespace-normalised
        self.decl_raw = ""  # as written (types)
        self.inline = False
        self.api = False  # RG_API
        self.proto_name = None
        self.proto_params = []  # [(name, text)]
        self.rtype = ""


def strip_comment_line(s):
    s = s.rstrip()
    m = re.match(r"^\s*\*( ?)(.*)$", s)
    if not m:
        return s.strip()
    return m.group(2)


def parse_comment(lines, doc):
    """Fill doc from the lines of a /** ... */ block (markers removed)."""
    text = [strip_comment_line(x) for x in lines]
    while text and not text[0].strip():
        text.pop(0)
    if not text:
        return False
    head = text.pop(0)
    m = re.match(r"^(struct|union|enum|typedef)\s+(" + IDENT +
                 r")\s*-\s*(.*)$", head)
    if m:
        doc.kind, doc.name, doc.summary = m.group(1), m.group(2), m.group(3)
    else:
        m = re.match(r"^(" + IDENT + r")(\(\))?\s*-\s*(.*)$", head)
        if not m:
            return False
        doc.kind = "function"
        doc.name, doc.summary = m.group(1), m.group(3)
    # Summary continuation lines, up to a blank line or an @argument.
    while text and text[0].strip() and not text[0].startswith("@"):
        if re.match(r"^(Context|Returns?):", text[0]):
            break
        doc.summary += " " + text.pop(0).strip()
    doc.summary = doc.summary.strip()

    section = None  # None: params/description; else "context"/"return"
    para = []
    para_literal = False

    def flush():
        nonlocal para
        if para:
            t = "\n".join(para) if para_literal else " ".join(
                x.strip() for x in para)
            if section is None:
                doc.body.append((para_literal, t))
            elif section == "context":
                doc.context = (doc.context + "\n\n" + t
                               if doc.context else t)
            else:
                doc.ret = doc.ret + "\n\n" + t if doc.ret else t
        para = []

    for raw in text:
        line = raw.rstrip()
        pm = re.match(r"^@(" + IDENT + r"|\.\.\.):\s*(.*)$", line)
        sm = re.match(r"^(Context|Returns?):\s*(.*)$", line)
        if pm and section is None and not doc.body and not para:
            doc.params.append([pm.group(1), pm.group(2).strip()])
            continue
        if (doc.params and not doc.body and not para and section is None
                and line[:1] in (" ", "\t") and line.strip()):
            doc.params[-1][1] += " " + line.strip()
            continue
        if sm:
            flush()
            section = "context" if sm.group(1) == "Context" else "return"
            para = [sm.group(2)] if sm.group(2) else []
            para_literal = False
            continue
        if not line.strip():
            flush()
            para_literal = False
            continue
        literal = line.startswith("\t") or line.startswith("    ")
        if para and literal != para_literal and section is None:
            flush()
        if not para:
            para_literal = literal and section is None
        para.append(line)
    flush()
    doc.params = [tuple(p) for p in doc.params]
    return True


def split_params(s):
    """Split a parameter list at commas outside parentheses."""
    out, depth, cur = [], 0, ""
    for c in s:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        out.append(cur.strip())
    return out


def param_name(p):
    m = re.search(r"\(\s*\*\s*(" + IDENT + r")\s*\)", p)
    if m:
        return m.group(1)
    if p.strip() == "...":
        return "..."
    p = re.sub(r"\[[^\]]*\]", "", p)
    ids = re.findall(IDENT, p)
    return ids[-1] if ids else ""


def parse_function_decl(doc, decl):
    """Prototype or inline definition: name, return type, parameters."""
    decl = re.sub(r"\s+", " ", decl).strip()
    doc.api = bool(re.search(r"\bRG_API\b", decl))
    doc.inline = bool(re.search(r"\bstatic\b", decl))
    decl = re.sub(r"\b(RG_API|static|inline|extern)\b ?", "", decl).strip()
    m = re.match(r"^(.*?)(" + IDENT + r")\s*\((.*)\)$", decl)
    if not m:
        return False
    doc.rtype = m.group(1).strip()
    doc.proto_name = m.group(2)
    plist = m.group(3).strip()
    params = [] if plist in ("", "void") else split_params(plist)
    doc.proto_params = [(param_name(p), p) for p in params]
    doc.decl = "%s%s%s(%s)" % (doc.rtype, "" if doc.rtype.endswith("*")
                               else " ", doc.proto_name, ", ".join(params))
    return True


def take_decl(src, pos):
    """The declaration starting at src[pos]: up to ';' or a body '{'."""
    i, depth = pos, 0
    while i < len(src):
        c = src[i]
        if src.startswith("/*", i):
            j = src.find("*/", i)
            i = j + 2 if j >= 0 else len(src)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif depth == 0 and c in ";{":
            return src[pos:i], c
        i += 1
    return src[pos:], ""


def take_braced(src, pos):
    """From the '{' at src[pos], the text up to its matching '}' and ';'."""
    depth, i = 0, pos
    while i < len(src):
        if src[i] == "{":
            depth += 1
        elif src[i] == "}":
            depth -= 1
            if depth == 0:
                j = src.find(";", i)
                return src[pos:j + 1 if j >= 0 else i + 1]
        i += 1
    return src[pos:]


def parse_header(path, incdir):
    """All kernel-doc items of a header, and its undocumented RG_API calls."""
    rel = os.path.relpath(path, incdir).replace(os.sep, "/")
    with open(path, encoding="utf-8") as f:
        src = f.read()
    docs, problems = [], []
    documented_at = set()
    for m in re.finditer(r"/\*\*(?!/)(.*?)\*/", src, re.S):
        line = src.count("\n", 0, m.start()) + 1
        doc = Doc(rel, line)
        if not parse_comment(m.group(1).split("\n"), doc):
            continue
        rest = m.end()
        while rest < len(src) and src[rest] in " \t\n":
            rest += 1
        if doc.kind == "function" and src.startswith("#define", rest):
            end = rest
            while True:
                e = src.find("\n", end)
                if e < 0 or src[e - 1] != "\\":
                    break
                end = e + 1
            text = src[rest:e if e >= 0 else len(src)].replace("\\\n", " ")
            dm = re.match(r"#define\s+(" + IDENT + r")(\(([^)]*)\))?", text)
            doc.kind = "macro"
            doc.proto_name = dm.group(1)
            args = dm.group(3)
            doc.decl = "#define %s%s" % (
                dm.group(1), "(%s)" % args if args is not None else "")
            doc.proto_params = [(a.strip(), a.strip()) for a in
                                (args or "").split(",") if a.strip()]
            docs.append(doc)
            continue
        decl, end = take_decl(src, rest)
        if doc.kind == "function":
            if not parse_function_decl(doc, decl):
                problems.append("include/%s:%d: %s(): no prototype follows "
                                "the comment" % (rel, line, doc.name))
                continue
            documented_at.add(src.count("\n", 0, rest) + 1)
        elif doc.kind in ("struct", "union", "enum"):
            body = take_braced(src, rest + len(decl)) if end == "{" else ""
            raw = decl + body
            raw = re.sub(r"/\*.*?\*/", "", raw, flags=re.S)
            doc.decl_raw = "\n".join(x.rstrip() for x in raw.split("\n")
                                     if x.strip())
            if not doc.decl_raw.endswith(";"):
                doc.decl_raw += ";"
        else:  # typedef
            doc.decl_raw = "\n".join(x.rstrip() for x in decl.split("\n")
                                     if x.strip()) + ";"
        docs.append(doc)
    # Every RG_API declaration, documented or not.
    for m in re.finditer(r"^RG_API\b", src, re.M):
        line = src.count("\n", 0, m.start()) + 1
        if line not in documented_at:
            decl, _ = take_decl(src, m.start())
            nm = re.search(r"(" + IDENT + r")\s*\(", decl)
            problems.append("include/%s:%d: %s(): RG_API function without a "
                            "kernel-doc comment" %
                            (rel, line, nm.group(1) if nm else "?"))
    return docs, problems


def check_doc(doc):
    """Problems of one documented function, as messages."""
    out = []
    where = "include/%s:%d: %s()" % (doc.header, doc.line, doc.name)
    if doc.kind not in ("function", "macro"):
        return out
    if doc.proto_name != doc.name:
        out.append("%s: the comment is followed by %s()" %
                   (where, doc.proto_name))
    if not doc.context:
        out.append("%s: no Context: line" % where)
    if doc.kind == "function" and doc.rtype != "void" and not doc.ret:
        out.append("%s: returns %s but has no Return: line" %
                   (where, doc.rtype))
    have = [p[0] for p in doc.params]
    want = [p[0] for p in doc.proto_params]
    for p in want:
        if p not in have:
            out.append("%s: argument %s has no @%s line" % (where, p, p))
    for p in have:
        if p not in want:
            out.append("%s: @%s is not an argument" % (where, p))
    return out


# ---- roff output ----

def esc(s):
    """Escape text for roff: backslashes, then minus signs of errnos."""
    s = s.replace("\\", "\\e")
    s = re.sub(r"(?<![A-Za-z0-9])-(?=[A-Z0-9])", r"\\-", s)
    return s


def line_safe(s):
    """Protect lines that would start with a roff control character."""
    return "\n".join("\\&" + x if x[:1] in (".", "'") else x
                     for x in s.split("\n"))


def inline_markup(s):
    """Kernel-doc markup to roff: @arg italic, func() and ERRNO bold."""
    s = esc(s)
    s = re.sub(r"\*@(" + IDENT + r")", r"*\\fI\1\\fP", s)
    s = re.sub(r"@(" + IDENT + r")", r"\\fI\1\\fP", s)
    s = re.sub(r"\b(" + IDENT + r")\(\)", r"\\fB\1\\fP()", s)
    s = re.sub(r"\\-(E[A-Z0-9]{2,})\b", r"\\fB\\-\1\\fP", s)
    s = re.sub(r"\b(RG_[A-Z0-9_]+)\b", r"\\fB\1\\fP", s)
    return line_safe(s)


def para_out(text):
    return inline_markup(text) + "\n"


def literal_out(text):
    lines = [x[1:] if x.startswith("\t") else x for x in text.split("\n")]
    return ".PP\n.EX\n" + line_safe(esc("\n".join(lines))) + "\n.EE\n"


def quote(s):
    return '"' + s.replace('"', '\\(dq') + '"'


def synopsis_proto(doc):
    """The prototype as .BI lines: type bold, argument names italic."""
    if doc.kind == "macro":
        segs = [("B", "#define " + doc.proto_name)]
        if doc.proto_params or doc.decl.endswith(")"):
            segs.append(("B", "("))
            for i, (n, _) in enumerate(doc.proto_params):
                if i:
                    segs.append(("B", ", "))
                segs.append(("I", n))
            segs.append(("B", ")"))
        return [segs]
    lead = doc.rtype + ("" if doc.rtype.endswith("*") else " ") + \
        doc.proto_name + "("
    pad = " " * len(lead)
    if not doc.proto_params:
        return [[("B", lead + "void);")]]
    lines, cur, width = [], [("B", lead)], len(lead)
    if len(lead) > 40:  # a long name: arguments on their own lines
        pad = " " * 8
        lines, cur, width = [cur], [("B", pad)], len(pad)
    fresh = True
    for i, (n, p) in enumerate(doc.proto_params):
        tail = ");" if i == len(doc.proto_params) - 1 else ","
        if n and n != "..." and n in p:
            k = p.rfind(n) if "(*" not in p else p.find(n)
            before, after = p[:k], p[k + len(n):]
            piece = [("B", before), ("I", n), ("B", after + tail)]
        else:
            piece = [("B", p + tail)]
        plen = len(p) + len(tail) + 1
        if not fresh and width + plen > 72:
            lines.append(cur)
            cur, width = [("B", pad)], len(pad)
        elif not fresh:
            cur.append(("B", " "))
            width += 1
        cur += piece
        width += plen
        fresh = False
    lines.append(cur)
    return lines


def bi_line(segs):
    """One .BI/.B/.I request from (style, text) segments."""
    merged = []
    for st, t in segs:
        if not t:
            continue
        if merged and merged[-1][0] == st:
            merged[-1] = (st, merged[-1][1] + t)
        else:
            merged.append((st, t))
    if len(merged) == 1:
        return ".%s %s" % (merged[0][0], quote(esc(merged[0][1])))
    req = "".join(st for st, _ in merged[:2])  # BI or IB
    return ".%s %s" % (req, " ".join(quote(esc(t)) for _, t in merged))


def errors_from(ret):
    """(code, condition) for each -ECODE or ECODE the Return: text names."""
    if not ret:
        return []
    flat = re.sub(r"\s+", " ", ret)
    codes = []
    for c in re.findall(r"(?<![A-Za-z0-9_])-?(E[A-Z0-9]{2,})\b", flat):
        if hasattr(errno, c) and c not in codes:
            codes.append(c)
    out = []
    clauses = [c.strip() for c in re.split(r";", flat)]
    for c in codes:
        cond = None
        for cl in clauses:
            found = re.findall(r"(?<![A-Za-z0-9_])-?(E[A-Z0-9]{2,})\b", cl)
            m = re.match(r"^(?:or |and )?-?" + c +
                         r"\b[ ,]*((?:if|when|for|because) .*)$", cl)
            if set(found) == {c} and m:
                cond = re.split(r"(?<=[A-Za-z0-9)])\. ", m.group(1))[0]
                cond = re.sub(r"^(if|when) ", "", cond.rstrip("."))
                cond = re.sub(r"\s*\(nothing changes\)$", "", cond)
                break
        out.append((c, cond))
    return out


def name_text(doc):
    """The NAME line's summary: plain text, as whatis(1) shows it."""
    t = re.sub(r"\*?@(" + IDENT + r")", r"\1", doc.summary.rstrip("."))
    return line_safe(esc(t))


def capital(s):
    return s[:1].upper() + s[1:]


def sentence(s):
    s = s.strip()
    return capital(s) if s.endswith(".") else capital(s) + "."


# ---- doc/api/<module>.md to an overview page ----
#
# A module's overview text has one home, doc/api/<module>.md, read on the
# web as it is; its man page is made from it. The page's name, header and
# NAME line come from a comment in the file:
#     <!-- man: rg_idr(3) region/idr.h: an ID-to-pointer map ... -->
# The markdown is the plain subset those pages use: "#" title (dropped),
# "##"/"###" headings (subsections of DESCRIPTION; "Examples" becomes the
# EXAMPLES section, "See also" SEE ALSO), paragraphs, "- " lists, tables
# (first cell as the tag, the rest as its text), ```c blocks, `code`,
# **bold**, *italic*, [text](link) and name(N) page references.

MAN_META = re.compile(r"<!--\s*man:\s*(" + IDENT + r")\((\w+)\)\s+(\S+):\s*"
                      r"(.*?)\s*-->", re.S)


def md_meta(path):
    """(page, section, header, summary) of a doc/api page, or None."""
    with open(path, encoding="utf-8") as f:
        m = MAN_META.search(f.read())
    if not m:
        return None
    return m.group(1), m.group(2), m.group(3), re.sub(r"\s+", " ",
                                                      m.group(4))


def md_inline(s):
    """Inline markdown to roff."""
    out, pos = [], 0
    for m in re.finditer(r"`([^`]+)`", s):
        out.append(md_text(s[pos:m.start()]))
        out.append("\\fB" + esc(m.group(1)) + "\\fP")
        pos = m.end()
    out.append(md_text(s[pos:]))
    return line_safe("".join(out))


def md_text(s):
    """Markdown text outside code spans to roff."""
    s = re.sub(r"\[([^\]]+)\]\(([^)]+)\)",
               lambda m: m.group(1) if m.group(2).endswith(".md") or
               m.group(2).startswith("#") else
               "%s <%s>" % (m.group(1), m.group(2)), s)
    s = esc(s)
    s = re.sub(r"\*\*([^*]+)\*\*", r"\\fB\1\\fP", s)
    s = re.sub(r"(?<![*\w])\*([^*\s][^*]*)\*(?![*\w])", r"\\fI\1\\fP", s)
    s = re.sub(r"\b(" + IDENT + r")\((\d\w*)\)", r"\\fB\1\\fP(\2)", s)
    s = re.sub(r"\b(" + IDENT + r")\(\)", r"\\fB\1\\fP()", s)
    return s


def md_cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def md_to_roff(text):
    """The body of a doc/api page as roff sections: a list of
    (section, roff) with section "DESCRIPTION", "EXAMPLES" or "SEE ALSO"."""
    text = MAN_META.sub("", text)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    lines = text.split("\n")
    sections, cur, out = [], "DESCRIPTION", []
    para = []

    def flush():
        nonlocal para
        if para:
            out.append(".PP\n" + md_inline(" ".join(para)) + "\n")
        para = []

    i = 0
    while i < len(lines):
        line = lines[i]
        st = line.strip()
        if line.startswith("```"):
            flush()
            code = []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                code.append(lines[i].replace("\t", "        "))
                i += 1
            out.append(".PP\n.EX\n" + line_safe(esc("\n".join(code))) +
                       "\n.EE\n")
        elif st.startswith("#"):
            flush()
            m = re.match(r"^(#+)\s*(.*)$", st)
            level, title = len(m.group(1)), m.group(2)
            if level == 1:
                pass
            elif title.lower() in ("example", "examples", "see also"):
                sections.append((cur, "".join(out)))
                cur, out = title.upper().replace("EXAMPLE", "EXAMPLES")\
                    .replace("EXAMPLESS", "EXAMPLES"), []
            else:
                if cur != "DESCRIPTION":
                    sections.append((cur, "".join(out)))
                    cur, out = "DESCRIPTION", []
                if not (level == 2 and title.lower() == "overview"):
                    out.append(".SS %s\n" % esc(title))
        elif st.startswith("|") and i + 1 < len(lines) and \
                re.match(r"^\|[-| :]+\|$", lines[i + 1].strip()):
            flush()
            i += 2
            while i < len(lines) and lines[i].strip().startswith("|"):
                cells = md_cells(lines[i])
                out.append(".TP\n%s\n%s\n" % (md_inline(cells[0]),
                                                md_inline(" \u2014 ".join(
                                                    c for c in cells[1:] if c))
                                                .replace("\u2014", "\\(em")))
                i += 1
            continue
        elif re.match(r"^[-*] ", st):
            flush()
            item = [st[2:]]
            while i + 1 < len(lines) and lines[i + 1].startswith("  ") and \
                    lines[i + 1].strip():
                i += 1
                item.append(lines[i].strip())
            out.append(".IP \\(bu 2\n" + md_inline(" ".join(item)) + "\n")
        elif not st:
            flush()
        else:
            para.append(st)
        i += 1
    flush()
    sections.append((cur, "".join(out)))
    return sections


class Pages:
    def __init__(self, docs, overviews, version):
        self.docs = docs
        self.funcs = {d.name: d for d in docs
                      if d.kind in ("function", "macro") and d.proto_name}
        self.types = {d.name: d for d in docs
                      if d.kind in ("struct", "union", "enum", "typedef")}
        self.overviews = overviews  # header -> (page, section, path)
        self.version = version

    def overview_of(self, header):
        o = self.overviews.get(header)
        return (o[0], o[1]) if o else ("libregion", "7")

    def th(self, name, section, src):
        return (".\\\" SPDX-License-Identifier: MIT\n"
                ".\\\" Generated from include/%s by scripts/kdoc2man.py;"
                " edit the header comment, not this file.\n"
                ".TH %s %s \"\" \"libregion %s\" \"libregion Manual\"\n"
                ".nh\n" %
                (src, name.upper(), section, self.version))

    def see_also(self, doc, text):
        refs = []
        ov = self.overview_of(doc.header)
        refs.append(ov)
        for n in re.findall(r"\b(" + IDENT + r")\(\)", text):
            if n != doc.name and n in self.funcs and (n, "3") not in refs:
                refs.append((n, "3"))
        for n in re.findall(r"\b(?:struct|enum|union) (" + IDENT + r")",
                            text) + re.findall(IDENT, doc.decl):
            if n in self.types and (n, "3type") not in refs:
                refs.append((n, "3type"))
        if ("libregion", "7") not in refs:
            refs.append(("libregion", "7"))
        return ".SH SEE ALSO\n" + ",\n".join(
            ".BR %s (%s)" % (n, s) for n, s in refs) + "\n"

    def function_page(self, doc):
        out = [self.th(doc.name, "3", doc.header)]
        out.append(".SH NAME\n%s \\- %s\n" % (doc.name, name_text(doc)))
        out.append(".SH SYNOPSIS\n.nf\n.B #include <%s>\n.PP\n" %
                   doc.header)
        out += [bi_line(x) + "\n" for x in synopsis_proto(doc)]
        out.append(".fi\n.PP\nLink with \\fI\\-lregion\\fP "
                   "(\\fBpkg\\-config \\-\\-libs libregion\\fP).\n")
        if doc.params:
            out.append(".SH ARGUMENTS\n")
            for n, t in doc.params:
                out.append(".TP\n.I %s\n%s" % (esc(n), para_out(t)))
        out.append(".SH DESCRIPTION\n")
        body = doc.body or [(False, sentence(doc.summary))]
        first = True
        for lit, t in body:
            if lit:
                out.append(literal_out(t))
            else:
                if not first:
                    out.append(".PP\n")
                out.append(para_out(t))
            first = False
        if doc.context:
            out.append(".SH CONTEXT\n")
            for i, t in enumerate(doc.context.split("\n\n")):
                out.append((".PP\n" if i else "") +
                           para_out(capital(t)))
        if doc.ret:
            out.append(".SH RETURN VALUE\n")
            for i, t in enumerate(doc.ret.split("\n\n")):
                out.append((".PP\n" if i else "") +
                           para_out(capital(t)))
        errs = errors_from(doc.ret) if doc.rtype != "bool" else []
        if errs:
            out.append(".SH ERRORS\n")
            for c, cond in errs:
                if cond:
                    t = inline_markup(sentence(cond))
                else:
                    t = "%s; see RETURN VALUE." % esc(
                        os.strerror(getattr(errno, c)))
                out.append(".TP\n.B %s\n%s\n" % (c, t))
        if doc.kind == "macro" or doc.inline:
            out.append(".SH NOTES\n")
            out.append("%s is defined in the header as a %s; the library "
                       "exports no symbol of that name.\n" %
                       ("\\fB" + doc.name + "\\fP" +
                        ("()" if doc.kind != "macro" or doc.proto_params
                         else ""),
                        "macro" if doc.kind == "macro"
                        else "static inline function"))
        alltext = " ".join([doc.summary, doc.context or "", doc.ret or ""] +
                           [t for _, t in doc.body] +
                           [t for _, t in doc.params])
        out.append(self.see_also(doc, alltext))
        return "".join(out)

    def type_page(self, doc):
        out = [self.th(doc.name, "3type", doc.header)]
        out.append(".SH NAME\n%s \\- %s\n" % (doc.name, name_text(doc)))
        out.append(".SH SYNOPSIS\n.B #include <%s>\n.PP\n.EX\n%s\n.EE\n" %
                   (doc.header, line_safe(esc(doc.decl_raw))))
        if doc.params:
            out.append(".SH %s\n" % ("VALUES" if doc.kind == "enum" else
                                     "ARGUMENTS" if doc.kind == "typedef"
                                     else "MEMBERS"))
            for n, t in doc.params:
                out.append(".TP\n.I %s\n%s" % (esc(n), para_out(t)))
        out.append(".SH DESCRIPTION\n")
        body = doc.body or [(False, sentence(doc.summary))]
        for i, (lit, t) in enumerate(body):
            if lit:
                out.append(literal_out(t))
            else:
                out.append((".PP\n" if i else "") + para_out(t))
        alltext = " ".join([doc.summary] + [t for _, t in doc.body] +
                           [t for _, t in doc.params])
        out.append(self.see_also(doc, alltext))
        return "".join(out)

    def md_page(self, header, page, section, path, summary):
        """An overview page made from doc/api/<module>.md."""
        with open(path, encoding="utf-8") as f:
            parts = md_to_roff(f.read())
        src = "doc/api/" + os.path.basename(path)
        out = [".\\\" SPDX-License-Identifier: MIT\n"
               ".\\\" Generated from %s by scripts/kdoc2man.py; edit that "
               "file, not this one.\n"
               ".TH %s %s \"\" \"libregion %s\" \"libregion Manual\"\n"
               ".nh\n" % (src, page.upper(), section, self.version)]
        out.append(".SH NAME\n%s \\- %s\n" % (page, line_safe(esc(summary))))
        out.append(".SH SYNOPSIS\n.nf\n.B #include <%s>\n.fi\n.PP\n"
                   "Link with \\fI\\-lregion\\fP "
                   "(\\fBpkg\\-config \\-\\-libs libregion\\fP).\n" % header)
        body = {}
        for sec, roff in parts:
            body[sec] = body.get(sec, "") + roff
        out.append(".SH DESCRIPTION\n" + body.get("DESCRIPTION", "")
                   .replace(".SH DESCRIPTION\n", "", 1))
        lst = self.calls_list(header, page, section)
        if lst:
            out.append(".SH FUNCTIONS\n" + lst + "\n")
        if body.get("EXAMPLES"):
            out.append(".SH EXAMPLES\n" + body["EXAMPLES"])
        see = body.get("SEE ALSO", "")
        refs = re.findall(r"\\fB(" + IDENT + r")\\fP\((\w+)\)", see)
        if ("libregion", "7") not in refs:
            refs.insert(0, ("libregion", "7"))
        out.append(".SH SEE ALSO\n" + ",\n".join(
            ".BR %s (%s)" % r for r in refs) + "\n")
        text = "".join(out)
        return re.sub(r"\.PP\n(\.S[HS] )", r"\1", text).replace(
            "\n.SH DESCRIPTION\n.PP\n", "\n.SH DESCRIPTION\n").replace(
            ".SS", ".SS", 1)

    def calls_list(self, header, page, section):
        items = [d for d in self.docs if d.header == header or
                 (page == "libregion" and section == "7" and
                  d.header not in self.overviews)]
        lst = []
        last = None
        for d in items:
            if d.kind in ("function", "macro") and d.proto_name:
                if page == "libregion" and d.header != last:
                    lst.append(".SS <%s>\n" % d.header)
                    last = d.header
                lst.append(".TP\n.BR %s (3)\n%s\n" %
                           (d.name, inline_markup(sentence(d.summary))))
        types = [d for d in items if d.name in self.types]
        if types:
            lst.append(".SS Types\n")
        for d in types:
            lst.append(".TP\n.BR %s (3type)\n%s\n" %
                       (d.name, inline_markup(sentence(d.summary))))
        return "".join(lst).rstrip("\n")

    def overview_page(self, header, page, section, path):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        items = [d for d in self.docs if d.header == header or
                 (page == "libregion" and section == "7" and
                  d.header not in self.overviews)]
        lst = []
        last = None
        for d in items:
            if d.kind in ("function", "macro") and d.proto_name:
                if page == "libregion" and d.header != last:
                    lst.append(".SS <%s>\n" % d.header)
                    last = d.header
                lst.append(".TP\n.BR %s (3)\n%s\n" %
                           (d.name, inline_markup(sentence(d.summary))))
        types = [d for d in items if d.name in self.types]
        if types:
            lst.append(".SS Types\n")
        for d in types:
            lst.append(".TP\n.BR %s (3type)\n%s\n" %
                       (d.name, inline_markup(sentence(d.summary))))
        marker = ".\\\" @CALLS@"
        text = text.replace(marker, "".join(lst).rstrip("\n"))
        text = re.sub(r"@VERSION@", self.version, text)
        return text


# ---- the kernel's names of region/linux/*.h ----
#
# <region/linux/MODULE.h> gives the kernel's names as static inline
# functions and macros over the rg_ calls, documented where the kernel
# documents them and, for libregion's differences, in rg_linux(3). Each
# gets a short page so that "man idr_alloc" answers: its declaration, the
# rg_ call it stands for (the first documented one its body uses, through
# other kernel names if need be) and where the differences are listed.
# Names that end in "_" or start with RG_ are the headers' own helpers.

def linux_names(incdir):
    """[(name, header, decl, body, kind)] of region/linux/*.h."""
    out, seen = [], set()
    for path in sorted(glob.glob(os.path.join(incdir, "region", "linux",
                                              "*.h"))):
        rel = os.path.relpath(path, incdir).replace(os.sep, "/")
        with open(path, encoding="utf-8") as f:
            src = f.read()
        for m in re.finditer(r"^(?:static inline|RG_LINUX_INLINE)\b[^;{]*?"
                             r"(" + IDENT + r")\s*\(", src, re.M):
            name = m.group(1)
            decl, end = take_decl(src, m.start())
            if end != "{":
                continue
            i = m.start() + len(decl)
            depth, j = 0, i
            while j < len(src):
                depth += {"{": 1, "}": -1}.get(src[j], 0)
                if depth == 0:
                    break
                j += 1
            body = src[i:j + 1]
            decl = re.sub(r"\s+", " ", decl).strip()
            decl = re.sub(r"^(static inline|RG_LINUX_INLINE) ", "", decl)
            out.append((name, rel, decl + ";", body, "function"))
        for m in re.finditer(r"^#\s*define\s+(" + IDENT + r")\(([^)]*)\)"
                             r"((?:.*\\\n)*.*)$", src, re.M):
            out.append((m.group(1), rel, "#define %s(%s)" %
                        (m.group(1), m.group(2)), m.group(3), "macro"))
    res = []
    for n, h, d, b, k in out:
        if n.endswith("_") or n.startswith("RG_") or n in seen:
            continue
        seen.add(n)
        res.append((n, h, d, b, k))
    return res


def linux_targets(names, funcs):
    """name -> the documented rg_ call it stands for, or None."""
    bodies = {n: b for n, _, _, b, _ in names}
    memo = {}

    def target(n, depth=0):
        if n in memo:
            return memo[n]
        memo[n] = None
        idents = re.findall(IDENT, bodies.get(n, ""))
        # An rg_ function first, then through kernel names, then an RG_
        # macro (the initialisers).
        for ident in idents:
            if ident in funcs and ident.startswith("rg_"):
                memo[n] = ident
                return ident
        for ident in idents:
            if ident != n and ident in bodies and depth < 8:
                t = target(ident, depth + 1)
                if t:
                    memo[n] = t
                    return t
        for ident in idents if n.isupper() else []:
            if ident in funcs:
                memo[n] = ident
                return ident
        return None
    return {n: target(n) for n in bodies}


def linux_page(pages, name, header, decl, kind, tgt):
    out = [".\\\" SPDX-License-Identifier: MIT\n"
           ".\\\" Generated from include/%s by scripts/kdoc2man.py.\n"
           ".TH %s 3 \"\" \"libregion %s\" \"libregion Manual\"\n.nh\n" %
           (header, name.upper(), pages.version)]
    what = "the kernel's name for %s()" % tgt if tgt else \
        "the kernel's name, in libregion's kernel-name headers"
    out.append(".SH NAME\n%s \\- %s\n" % (esc(name), esc(what)))
    out.append(".SH SYNOPSIS\n.nf\n.B #include <%s>\n.PP\n.B %s\n.fi\n"
               ".PP\nLink with \\fI\\-lregion\\fP "
               "(\\fBpkg\\-config \\-\\-libs libregion\\fP).\n" %
               (header, quote(esc(decl))))
    out.append(".SH DESCRIPTION\n\\fB%s\\fP is a %s of\n.I <%s>\n"
               "with the Linux kernel's name, argument order and return "
               "convention%s\n"
               "Arguments of type gfp_t are accepted and ignored.\n"
               "The kernel documents what it does; where libregion differs, "
               "the header and\n.BR rg_linux (3)\nsay so.\n" %
               (esc(name), "macro" if kind == "macro" else
                "static inline function", header,
                (",\nover\n.BR %s (3)." % tgt) if tgt else "."))
    out.append(".SH NOTES\nThe library exports no symbol of that name.\n")
    refs = ([(tgt, "3")] if tgt else []) + [("rg_linux", "3"),
                                            ("libregion", "7")]
    out.append(".SH SEE ALSO\n" + ",\n".join(".BR %s (%s)" % r
                                              for r in refs) + "\n")
    return "".join(out)


# ---- regionbench(1) from its own --help texts ----

def help_to_roff(text, skip_common=False):
    """One --help text as roff: "name:" lines as subsections, two-column
    option and command lines as tagged paragraphs, the rest as text."""
    out, tag, body, para = [], None, [], []

    def flush():
        nonlocal tag, body, para
        if tag is not None:
            out.append(".TP\n.B %s\n%s\n" % (esc(tag),
                                              line_safe(esc(" ".join(body)))))
        if para:
            out.append(".PP\n" + line_safe(esc(" ".join(para))) + "\n")
        tag, body, para = None, [], []

    skipping = False
    for line in text.split("\n"):
        if not line.strip():
            flush()
            skipping = False
            continue
        if skipping:
            continue
        if not line.startswith(" "):
            if tag is not None or not para:
                flush()
            if skip_common and line.startswith("common options"):
                skipping = True
                continue
            if line.endswith(":") or re.match(r"^[\w ]+\(.*\):$", line):
                flush()
                out.append(".SS %s\n" % esc(capital(line.rstrip(":"))))
            else:
                para.append(line.strip())
            continue
        m = re.match(r"^  (\S.*?)(?:\s{2,}(\S.*))?$", line)
        if m and not line.startswith("    "):
            flush()
            tag, body = m.group(1), [m.group(2)] if m.group(2) else []
        elif tag is not None:
            body.append(line.strip())
        else:
            para.append(line.strip())
    flush()
    return "".join(out)


def regionbench_page(exe, version, summary):
    """regionbench(1): its --help and each command's --help."""
    import subprocess

    def run(*args):
        r = subprocess.run([exe] + list(args), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        return r.stdout
    main_help = run("--help")
    lines = main_help.split("\n")
    usage = lines[:lines.index("")] if "" in lines else lines[:1]
    rest = lines[len(usage):]
    out = [".\\\" SPDX-License-Identifier: MIT\n"
           ".\\\" Generated from the --help texts of regionbench by "
           "scripts/kdoc2man.py; edit those, not this file.\n"
           ".TH REGIONBENCH 1 \"\" \"libregion %s\" \"libregion Manual\"\n"
           ".nh\n.SH NAME\nregionbench \\- %s\n.SH SYNOPSIS\n.nf\n" %
           (version, line_safe(esc(summary)))]
    for u in usage:
        out.append(line_safe(esc(re.sub(r"^(usage:)?\s+", "", u))) + "\n")
    out.append(".fi\n.SH DESCRIPTION\n" + help_to_roff("\n".join(rest)))
    out.append(".SH COMMANDS\n")
    for cmd in run("--list").split():
        h = run(cmd, "--help").split("\n")
        out.append(".SS %s\n.PP\n.nf\n%s\n.fi\n" %
                   (esc(cmd), line_safe(esc(h[0].replace("usage: ", "")))))
        out.append(help_to_roff("\n".join(h[1:]), skip_common=True)
                   .replace(".SS ", ".PP\n.B ").replace("\n.PP\n.PP\n",
                                                         "\n.PP\n"))
    out.append(".SH SEE ALSO\n.BR rg_region (3),\n.BR libregion (7)\n")
    return "".join(out)


# ---- the EXAMPLES of the pages, as programs the tests build and run ----

EXAMPLE_HEAD = """/* Made from the EXAMPLES of %s by scripts/kdoc2man.py. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
"""


def roff_unescape(s):
    for a, b in (("\\-", "-"), ("\\(dq", '"'), ("\\(aq", "'"),
                 ("\\&", ""), ("\\e", "\\")):
        s = s.replace(a, b)
    return s


def page_examples(name, text):
    """The C programs of a page's EXAMPLES section: a block with a main()
    as it is; any other block (its #include lines first) as the body of a
    function returning int, which main() calls: 0 is success."""
    m = re.search(r"^\.SH EXAMPLES\n(.*?)(?=^\.SH |\Z)", text, re.M | re.S)
    if not m:
        return []
    out = []
    for b in re.findall(r"^\.EX\n(.*?)^\.EE\n", m.group(1), re.M | re.S):
        code = roff_unescape(b)
        head = EXAMPLE_HEAD % name
        if re.search(r"\bmain\s*\(", code):
            out.append(head + code)
            continue
        inc = [x for x in code.split("\n") if x.startswith("#include")]
        body = [x for x in code.split("\n") if not x.startswith("#include")]
        out.append(head + "".join(x + "\n" for x in inc) +
                   "#include <libregion.h>\n\nstatic int example(void)\n{\n" +
                   "".join(("\t" + x if x.strip() else "") + "\n"
                           for x in body) +
                   "\treturn 0;\n}\n\nint main(void)\n{\n"
                   "\treturn example() ? 1 : 0;\n}\n")
    return out


def read_overviews(mandir, apidir=None):
    """header -> (page, section, path) from the "header:" lines of doc/man
    and the "man:" comments of doc/api; and every overview page as
    (page, section, path, summary or None)."""
    out, pages = {}, []
    for path in sorted(glob.glob(os.path.join(apidir or "", "*.md"))
                       if apidir else []):
        meta = md_meta(path)
        if meta:
            out[meta[2]] = (meta[0], meta[1], path)
            pages.append((meta[0], meta[1], path, meta[3]))
    if not mandir:
        return out, pages
    for path in sorted(glob.glob(os.path.join(mandir, "*.[0-9]*"))):
        base = os.path.basename(path)
        page, section = base.rsplit(".", 1)
        pages.append((page, section, path, None))
        with open(path, encoding="utf-8") as f:
            for line in f:
                m = re.match(r'^\.\\" header: (\S+)', line)
                if m:
                    out[m.group(1)] = (page, section, path)
    return out, pages


def collect(incdir):
    docs, problems = [], []
    for path in sorted(glob.glob(os.path.join(incdir, "region", "*.h"))):
        d, p = parse_header(path, incdir)
        docs += d
        problems += p
    for d in docs:
        problems += check_doc(d)
    seen = {}
    for d in docs:
        key = (d.name, d.kind in ("function", "macro"))
        if key in seen:
            problems.append("include/%s:%d: %s documented twice (also %s:%d)" %
                            (d.header, d.line, d.name, seen[key].header,
                             seen[key].line))
        seen[key] = d
    return docs, problems


def render_html(mandoc, pages, outdir):
    """Each page to NAME.SECTION.html with mandoc, cross-linked, and an
    index.html listing them with their NAME lines."""
    import html
    import subprocess
    names = {os.path.basename(p): p for p in pages}
    index = []
    os.makedirs(outdir, exist_ok=True)
    for base, path in sorted(names.items()):
        r = subprocess.run([mandoc, "-Thtml", "-Wstop,error", path],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
        if r.returncode != 0:
            sys.stderr.write(r.stderr)
            print("kdoc2man: mandoc failed on %s" % path, file=sys.stderr)
            return 1

        def link(m):
            target = "%s.%s" % (html.unescape(m.group(1)), m.group(2))
            if target not in names:
                return m.group(0)
            return '<a href="%s.html">%s</a>' % (target, m.group(0))
        text = re.sub(r"<b>(" + IDENT + r")</b>\((\w+)\)", link, r.stdout)
        with open(os.path.join(outdir, base + ".html"), "w",
                  encoding="utf-8") as f:
            f.write(text)
        page, sect = base.rsplit(".", 1)
        summary = ""
        with open(path, encoding="utf-8") as f:
            src = f.read()
        m = re.search(r"^\.SH NAME\n(.*?)\n\.", src, re.M | re.S)
        if m:
            summary = re.sub(r"\\f[BIRP]|\\&", "", m.group(1))
            summary = summary.split("\\-", 1)[-1].strip()
            summary = summary.replace("\\e", "\\").replace("\\-", "-")
        index.append('<li><a href="%s.html">%s(%s)</a> &mdash; %s</li>' %
                     (base, html.escape(page), sect, html.escape(summary)))
    with open(os.path.join(outdir, "index.html"), "w",
              encoding="utf-8") as f:
        f.write("<!DOCTYPE html>\n<!-- SPDX-License-Identifier: MIT -->\n"
                "<html>\n<head><meta charset=\"utf-8\"/>"
                "<title>libregion manual</title></head>\n<body>\n"
                "<h1>libregion manual</h1>\n<ul>\n%s\n</ul>\n"
                "</body>\n</html>\n" % "\n".join(index))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="+", metavar="INCDIR",
                    help="the include folder (holds region/*.h); with "
                    "--html the pages to render")
    ap.add_argument("--outdir", help="where to write the pages")
    ap.add_argument("--man", help="folder of the hand-written overview pages")
    ap.add_argument("--api", help="folder of the doc/api pages, the source "
                    "of the overview pages they name in a \"man:\" comment")
    ap.add_argument("--version", default="", help="libregion version")
    ap.add_argument("--list", action="store_true",
                    help="print the names of the pages, write nothing")
    ap.add_argument("--check", action="store_true",
                    help="report problems; exit 1 if there are any")
    ap.add_argument("--inputs", action="store_true",
                    help="print the files the pages are made from")
    ap.add_argument("--regionbench", metavar="EXE",
                    help="write regionbench.1 from EXE's --help texts")
    ap.add_argument("--summary", default="",
                    help="with --regionbench: the NAME line")
    ap.add_argument("--list-examples", action="store_true",
                    help="print the names of the example programs")
    ap.add_argument("--examples", action="store_true",
                    help="write the EXAMPLES of every page as programs")
    ap.add_argument("--html", metavar="MANDOC",
                    help="render the pages given to HTML with this mandoc")
    a = ap.parse_args()

    if a.regionbench:
        with open(os.path.join(a.outdir or ".", "regionbench.1"), "w",
                  encoding="utf-8") as f:
            f.write(regionbench_page(a.regionbench, a.version, a.summary))
        return 0
    if a.html:
        if not a.outdir:
            ap.error("--html needs --outdir")
        return render_html(a.html, a.paths, a.outdir)
    a.incdir = a.paths[0]
    docs, problems = collect(a.incdir)
    overviews, hand = read_overviews(a.man, a.api)
    pages = Pages(docs, overviews, a.version)
    files = {}
    for d in docs:
        if d.kind in ("function", "macro") and d.proto_name == d.name:
            files[d.name + ".3"] = lambda d=d: pages.function_page(d)
        elif d.name in pages.types:
            files[d.name + ".3type"] = lambda d=d: pages.type_page(d)
    lnames = linux_names(a.incdir)
    ltgt = linux_targets(lnames, pages.funcs)
    for n, h, d, _, k in lnames:
        if n + ".3" in files:
            problems.append("include/%s: %s has a page already" % (h, n))
            continue
        files[n + ".3"] = (lambda n=n, h=h, d=d, k=k: linux_page(
            pages, n, h, d, k, ltgt[n]))
    headers = {o[2]: h for h, o in overviews.items()}
    for page, section, path, summary in hand:
        name = "%s.%s" % (page, section)
        if name in files:
            problems.append("%s: page %s made from two files" % (path, name))
        if summary is None:
            files[name] = (lambda p=page, s=section, path=path:
                           pages.overview_page(headers.get(path), p, s, path))
        else:
            files[name] = (lambda p=page, s=section, path=path, m=summary:
                           pages.md_page(headers.get(path), p, s, path, m))

    if a.check:
        for p in problems:
            print(p)
        print("kdoc2man: %d documented items, %d problems" %
              (len(docs), len(problems)))
        return 1 if problems else 0
    if a.inputs:
        ins = [os.path.abspath(__file__)]
        ins += sorted(glob.glob(os.path.join(os.path.abspath(a.incdir),
                                             "region", "*.h")))
        ins += sorted(glob.glob(os.path.join(os.path.abspath(a.incdir),
                                             "region", "linux", "*.h")))
        ins += [os.path.abspath(h[2]) for h in hand]
        for f in ins:
            print(f)
        return 0
    if a.list:
        for f in sorted(files):
            print(f)
        return 0
    if a.list_examples or a.examples:
        for name, make in sorted(files.items()):
            for k, prog in enumerate(page_examples(name, make())):
                fn = "example_%s_%d.c" % (name.replace(".", "_"), k + 1)
                if a.list_examples:
                    print(fn)
                else:
                    with open(os.path.join(a.outdir, fn), "w",
                              encoding="utf-8") as f:
                        f.write(prog)
        return 0
    if not a.outdir:
        ap.error("--outdir is required unless --list or --check")
    for p in problems:
        print("kdoc2man: warning: " + p, file=sys.stderr)
    os.makedirs(a.outdir, exist_ok=True)
    for name, make in sorted(files.items()):
        text = make()
        path = os.path.join(a.outdir, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
