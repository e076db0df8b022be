"""tests/lib/mock_propose.py - the mock teacher's proposals (tests/lib/mock_llm.py
answers a proposal request, tasks/prompts/propose.md, with them).

A request is recognized by its marker line, <!-- retort-propose family=F
batch=K count=N first=G -->; its round is the number of user messages.

--propose-dir DIR: the answer to family F, batch K, round R is the file
DIR/F-bK-rR.md when it exists (tests write planted answers there).
Otherwise the mock writes N specs itself: problem G+j is y = alpha * f(x)
+ b with f, alpha and b a function of G+j alone (16 f's, 32 alphas, 32
b's: problems 0 .. 16383 are all different functions), described with 40
made-up words drawn from the problem number, so that no two texts are alike.
--propose-plant invalid=P,twin=P,near=P (rates) plants, by the problem
number's hash: invalid (round 1 breaks a rule, the repair round fixes
it), twin (the previous problem's function under other names and words:
a behavioural duplicate), near (the previous problem's text with another
id and another b: a text near-duplicate). truth(G) says what each is.

A reference request (tasks/prompts/propose-reference.md: <!-- retort-
reference family=F batch=K n=N count=M -->) gets a C reference per
problem: DIR/F-bK-refN.md when it exists; else, for the mock's own
problems (ids p<G>_...), problem G's function written anew, and for a
planted spec, the reference of the spec with that id in DIR's answers.
A hand-written spec's reference request (<!-- retort-reference spec=ID
n=N count=1 -->, reference: teacher) gets DIR/spec-ID-refN.md, or no
reference when there is none. Planted by the problem number's hash as well (--propose-plant
wrongref=P,badref=P, drawn apart from the kinds above): wrongref (the
second reference is off by 0.5, the third right: kept, 2/3), badref (the
second and the third are off: rejected).
"""
import hashlib
import math
import os
import re

PROPOSE_DIR = None
PLANT = {"invalid": 0.0, "twin": 0.0, "near": 0.0, "wrongref": 0.0, "badref": 0.0}

OPS = [("x", "x[i]", lambda x: x), ("x squared", "x[i] * x[i]", lambda x: x * x),
       ("the sine of x", "sinf(x[i])", math.sin), ("the cosine of x", "cosf(x[i])", math.cos),
       ("the hyperbolic tangent of x", "tanhf(x[i])", math.tanh),
       ("exp(-x^2)", "expf(-x[i] * x[i])", lambda x: math.exp(-x * x)),
       ("the softsign x / (1 + |x|)", "x[i] / (1.0f + fabsf(x[i]))", lambda x: x / (1 + abs(x))),
       ("relu(x)", "fmaxf(x[i], 0.0f)", lambda x: max(x, 0.0)), ("x cubed", "x[i] * x[i] * x[i]", lambda x: x ** 3),
       ("log(1 + x^2)", "logf(1.0f + x[i] * x[i])", lambda x: math.log(1 + x * x)),
       ("sqrt(1 + x^2)", "sqrtf(1.0f + x[i] * x[i])", lambda x: math.sqrt(1 + x * x)),
       ("the arctangent of x", "atanf(x[i])", math.atan),
       ("the logistic sigmoid of x", "1.0f / (1.0f + expf(-x[i]))", lambda x: 1 / (1 + math.exp(-x))),
       ("x times the sigmoid of x", "x[i] / (1.0f + expf(-x[i]))", lambda x: x / (1 + math.exp(-x))),
       ("the softplus log(1 + e^x)", "log1pf(expf(x[i]))", lambda x: math.log1p(math.exp(x))),
       ("x * |x|", "x[i] * fabsf(x[i])", lambda x: x * abs(x))]
WORDS = ("amber basalt cobalt dune ember fjord glacier harbor iris jasper kelp lagoon meadow nebula onyx prairie "
         "quartz reef sierra tundra umber valley willow xenon yarrow zephyr anchor beacon canyon delta estuary "
         "falcon granite heron island juniper kestrel lantern marble nimbus orchid pebble quill raven summit "
         "thistle urchin vortex walrus yucca zenith alder birch cedar dahlia elm fern ginkgo hazel ivy").split()


def word(x):
    """one of 6,400 made-up words"""
    c, v = "bdfgklmnprstvz", "aeiou"
    return c[x % 14] + v[x // 14 % 5] + c[x // 70 % 14] + v[x // 980 % 5] + ("n" if x // 4900 % 2 else "")


def h(*parts):
    return int(hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest(), 16)


def refkind(g):
    """problem g's independent references: right, wrongref or badref (by another hash)"""
    u = (h("refplant", g) % 10000) / 10000.0
    for k in ("wrongref", "badref"):
        if u < PLANT[k]:
            return k
        u -= PLANT[k]
    return "right"


def reference(g, n):
    """the n-th independent reference of the mock's problem g"""
    op, a, b = function(g)
    k = refkind(g)
    if k == "badref" or (k == "wrongref" and n == 2):
        b += 0.5
    return ("#include <math.h>\nvoid reference(const float *x, float *y, float alpha, int n)\n"
            "{ for (int i = 0; i < n; i++) y[i] = alpha * %s + %.17g; }\n" % (OPS[op][1], b))


def planted_reference(spec_id):
    """the reference of the planted spec spec_id (in PROPOSE_DIR's answers), or None"""
    if not PROPOSE_DIR:
        return None
    for name in sorted(os.listdir(PROPOSE_DIR)):
        text = open(os.path.join(PROPOSE_DIR, name)).read()
        for block in re.findall(r"```yaml\n(.*?)```", text, re.S):
            if re.search(r"^id: %s\s*$" % re.escape(spec_id), block, re.M):
                m = re.search(r"^reference: \|\n((?:  .*\n|\n)+)", block, re.M)
                if m:
                    return "".join(line[2:] + "\n" for line in m.group(1).split("\n") if line.strip())
    return None


def reference_answer(first_user):
    ms = re.search(r"<!-- retort-reference spec=(\S+) n=(\d+) count=(\d+) -->", first_user)
    if ms:  # a hand-written spec's (reference: teacher): only what the test wrote
        p = os.path.join(PROPOSE_DIR or "", "spec-%s-ref%s.md" % (ms.group(1), ms.group(2)))
        return open(p).read() if PROPOSE_DIR and os.path.exists(p) else "No reference."
    mk = re.search(r"<!-- retort-reference family=(\w+) batch=(\d+) n=(\d+) count=(\d+) -->", first_user)
    if not mk:
        return None
    fam, batch, n = mk.group(1), int(mk.group(2)), int(mk.group(3))
    if PROPOSE_DIR:
        p = os.path.join(PROPOSE_DIR, "%s-b%d-ref%d.md" % (fam, batch, n))
        if os.path.exists(p):
            return open(p).read()
    out = []
    for spec_id in re.findall(r"^## Problem \d+\n\nThe signature: `[^`]*`\n\n```yaml\nid: (\S+)", first_user, re.M):
        m = re.match(r"p(\d+)_", spec_id)
        code = reference(int(m.group(1)), n) if m else planted_reference(spec_id)
        out.append("Reference for %s\n```c\n%s```\n" % (spec_id, code or ""))
    return "\n".join(out)


def kind(g):
    """what problem g is: honest, invalid, twin or near (by its hash)"""
    u = (h("plant", g) % 10000) / 10000.0
    for k in ("invalid", "twin", "near"):
        if u < PLANT[k]:
            return k
        u -= PLANT[k]
    return "honest"


def function(g):
    """problem g's (op, alpha, b): twins and near-duplicates take g - 1's"""
    k = kind(g)
    if k == "twin" and g > 0:
        return function(g - 1)
    if k == "near" and g > 0:
        op, a, b = function(g - 1)
        return op, a, b + 0.0625
    return g % 16, 0.5 + ((g // 16) % 32) * 0.25, -4.0 + ((g // 512) % 32) * 0.25


def textof(g):
    """whose words problem g's text is made of: a near-duplicate's are the previous problem's (a near of a near
    keeps the same text again, so that it is a near-duplicate of the one before it)"""
    return textof(g - 1) if kind(g) == "near" and g > 0 else g


def spec(g, fault=None, bshift=0.0):
    op, a, b = function(g)
    b += bshift
    desc, cexpr, fn = OPS[op]
    k = kind(g)
    textg = textof(g)  # a near-duplicate keeps the previous problem's text
    words = " ".join(word(h("w", textg, j)) for j in range(40))
    name = "p%d_%s" % (g, WORDS[h("n", g) % len(WORDS)])
    xs, yn = ("x", "y") if k != "twin" else ("v", "w")
    cx = cexpr.replace("x[i]", xs + "[i]")
    ex = [1.0, -0.5, 0.25]
    out = [a * fn(v) + b for v in ex]
    tol = ""
    extra = ""
    if fault == "scalar":
        cref = "%s * %s + %.17g" % (repr(a), cx, b)
    else:
        cref = "alpha * %s + %.17g" % (cx, b)
    if fault == "allow":
        extra = "allow: [library]\n"
    if fault == "tolerance":
        tol = "tolerance: {rtol: 0.5}\n"
    if fault == "example":
        out = [v + 1 for v in out]
    key = "colour" if fault == "schema" else "tags"
    return ("""id: %s
description: |
  Problem %s (%s). For a vector %s of n f32 elements and a scalar alpha,
  write %s[i] = alpha * f(%s[i]) + %.17g where f is %s.
%s: [mock]
entry: %s
args:
  - {name: %s, kind: in, dtype: f32, shape: [n]}
  - {name: %s, kind: out, dtype: f32, shape: [n]}
  - {name: alpha, kind: scalar, dtype: f32, value: %r}
  - {name: n, kind: size}
sizes:
  verify: [{n: 1}, {n: 37}, {n: 1000}]
  bench: [{n: 4194304}]
reference: |
  #include <math.h>
  void reference(const float *%s, float *%s, float alpha, int n)
  { for (int i = 0; i < n; i++) %s[i] = %s; }
examples:
  - sizes: {n: 3}
    in: {%s: [1, -0.5, 0.25]}
    out: {%s: [%s]}
%s%s""" % (name, words, "the %s family" % WORDS[h("f", textg) % len(WORDS)], xs, yn, xs, b, desc, key, name,
          xs, yn, a, xs, yn, yn, cref, xs, yn, ", ".join("%.9g" % v for v in out), tol, extra))


FAULTS = ["scalar", "allow", "schema", "example", "tolerance"]


def answer(body):
    users = []
    for m in body.get("messages", []):
        if m.get("role") != "user":
            continue
        c = m.get("content")
        users.append(c if isinstance(c, str) else "".join(b.get("text", "") for b in c))
    if not users:
        return None
    ref = reference_answer(users[0])
    if ref is not None:
        return ref
    mk = re.search(r"<!-- retort-propose family=(\w+) batch=(\d+) count=(\d+) first=(\d+) -->", users[0])
    if not mk:
        return None
    fam, batch, count, first = mk.group(1), int(mk.group(2)), int(mk.group(3)), int(mk.group(4))
    rnd = len(users)
    if PROPOSE_DIR:
        p = os.path.join(PROPOSE_DIR, "%s-b%d-r%d.md" % (fam, batch, rnd))
        if os.path.exists(p):
            return open(p).read()
    if rnd == 1:
        return "".join("Problem %d\n```yaml\n%s```\n\n" % (first + j, spec(first + j, FAULTS[h("k", first + j) % 5]
                       if kind(first + j) == "invalid" else None)) for j in range(count))
    # a repair: the batch's planted invalid proposals (those the feedback lists, in its order), fixed
    bad = [first + j for j in range(count) if kind(first + j) == "invalid"]
    n = len(re.findall(r"^- Proposal \d+ ", users[-1], re.M))
    return "\n".join("```yaml\n%s```\n" % spec(g) for g in bad[:n])
