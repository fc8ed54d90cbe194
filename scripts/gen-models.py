#!/usr/bin/env python3
"""Generate real models in the TOSA dialect and lower them to linalg.

Writes ResNet-50 (batch 1 and 8), a BERT-base encoder layer (sequence 128
and 384) and a ViT-B/16 block (patch embedding + one encoder block) as
textual TOSA, plus small variants of each for tests, and lowers them to
linalg on tensors with upstream mlir-opt:

  builtin.module(func.func(tosa-to-linalg-named, tosa-to-linalg,
                           tosa-to-arith, tosa-to-tensor), canonicalize)

Weights are function arguments (ResNet-50 has 25M parameters: as constants
it would be a 100 MB file); tiletune-run seeds every argument with uniform
random values in [-1, 1]. Per-channel parameters that keep activations of
unit scale (folded batch-norm scale and shift, biases, layer-norm gamma and
beta) are splat constants: multiplying a conv or matmul result by
sqrt(c / fan_in) keeps the activations O(1) through all 50 layers, so the
output is a meaningful thing to compare between two lowerings.

Every model is one public function, @<name with '_'>, returning its output.
Python 3 standard library only; nothing is downloaded.

  scripts/gen-models.py --out build/models            # all models, lowered
  scripts/gen-models.py --out /tmp/m bert-tiny        # one model
  scripts/gen-models.py --list
"""

import argparse
import math
import os
import subprocess
import sys

F32_MAX = "3.40282347E+38"


def ty(shape):
    return "tensor<" + "x".join(str(d) for d in shape) + "xf32>"


def fmt(value):
    # MLIR's float literals need a '.' before an exponent ("1.0e-05").
    return "{:.9e}".format(float(value))


class Emitter:
    """Builds one func.func in TOSA: SSA values with their shapes."""

    def __init__(self, name):
        self.name = name
        self.args = []  # (name, shape, comment)
        self.body = []
        self.count = 0
        self.consts = {}
        self.shape = {}

    def fresh(self, shape, prefix="v"):
        self.count += 1
        name = f"%{prefix}{self.count}"
        self.shape[name] = list(shape)
        return name

    def arg(self, shape, comment):
        name = f"%arg{len(self.args)}"
        self.args.append((name, list(shape), comment))
        self.shape[name] = list(shape)
        return name

    def emit(self, line):
        self.body.append("  " + line)

    # Constants (cached: one splat per shape and value).
    def splat(self, shape, value):
        key = ("f32", tuple(shape), fmt(value))
        if key not in self.consts:
            name = self.fresh(shape, "c")
            self.emit(f'{name} = "tosa.const"() <{{values = dense<{fmt(value)}> '
                      f': {ty(shape)}}}> : () -> {ty(shape)}')
            self.consts[key] = name
        return self.consts[key]

    def zp(self):
        return self.splat([1], 0.0)

    def shift(self):
        key = ("i8", (1,), "0")
        if key not in self.consts:
            self.count += 1
            name = f"%c{self.count}"
            self.emit(f'{name} = "tosa.const"() <{{values = dense<0> : '
                      f'tensor<1xi8>}}> : () -> tensor<1xi8>')
            self.consts[key] = name
        return self.consts[key]

    def shape_const(self, dims):
        key = ("shape", tuple(dims), "")
        if key not in self.consts:
            self.count += 1
            name = f"%s{self.count}"
            values = ", ".join(str(d) for d in dims)
            self.emit(f"{name} = tosa.const_shape {{values = dense<[{values}]> "
                      f": tensor<{len(dims)}xindex>}} : () -> "
                      f"!tosa.shape<{len(dims)}>")
            self.consts[key] = name
        return self.consts[key]

    # Ops.
    def conv2d(self, x, w, bias_value, stride, pad):
        n, h, wd, c = self.shape[x]
        f, kh, kw, c2 = self.shape[w]
        assert c == c2, (self.shape[x], self.shape[w])
        pt, pb, pl, pr = pad
        assert (h - 1 + pt + pb - (kh - 1)) % stride == 0, (h, kh, stride, pad)
        assert (wd - 1 + pl + pr - (kw - 1)) % stride == 0, (wd, kw, stride, pad)
        oh = (h - 1 + pt + pb - (kh - 1)) // stride + 1
        ow = (wd - 1 + pl + pr - (kw - 1)) // stride + 1
        b = self.splat([f], bias_value)
        zp = self.zp()
        out = self.fresh([n, oh, ow, f])
        self.emit(
            f"{out} = tosa.conv2d {x}, {w}, {b}, {zp}, {zp} {{acc_type = f32, "
            f"dilation = array<i64: 1, 1>, pad = array<i64: {pt}, {pb}, {pl}, "
            f"{pr}>, stride = array<i64: {stride}, {stride}>}} : "
            f"({ty(self.shape[x])}, {ty(self.shape[w])}, {ty([f])}, "
            f"{ty([1])}, {ty([1])}) -> {ty([n, oh, ow, f])}")
        return out

    def matmul(self, a, b):
        n, m, k = self.shape[a]
        n2, k2, p = self.shape[b]
        assert n == n2 and k == k2, (self.shape[a], self.shape[b])
        zp = self.zp()
        out = self.fresh([n, m, p])
        self.emit(f"{out} = tosa.matmul {a}, {b}, {zp}, {zp} : "
                  f"({ty(self.shape[a])}, {ty(self.shape[b])}, {ty([1])}, "
                  f"{ty([1])}) -> {ty([n, m, p])}")
        return out

    def _broadcast(self, a, b):
        sa, sb = self.shape[a], self.shape[b]
        assert len(sa) == len(sb), (sa, sb)
        return [max(x, y) for x, y in zip(sa, sb)]

    def binary(self, op, a, b):
        shape = self._broadcast(a, b)
        out = self.fresh(shape)
        self.emit(f"{out} = tosa.{op} {a}, {b} : ({ty(self.shape[a])}, "
                  f"{ty(self.shape[b])}) -> {ty(shape)}")
        return out

    def add(self, a, b):
        return self.binary("add", a, b)

    def sub(self, a, b):
        return self.binary("sub", a, b)

    def mul(self, a, b):
        shape = self._broadcast(a, b)
        out = self.fresh(shape)
        s = self.shift()
        self.emit(f"{out} = tosa.mul {a}, {b}, {s} : ({ty(self.shape[a])}, "
                  f"{ty(self.shape[b])}, tensor<1xi8>) -> {ty(shape)}")
        return out

    def scale_shift(self, x, scale, shift):
        """x * scale + shift with per-last-dim splat constants (a folded
        batch norm, or a linear layer's scale and bias)."""
        rank = len(self.shape[x])
        c = self.shape[x][-1]
        y = self.mul(x, self.splat([1] * (rank - 1) + [c], scale))
        if shift is None:
            return y
        return self.add(y, self.splat([1] * (rank - 1) + [c], shift))

    def unary(self, op, x):
        out = self.fresh(self.shape[x])
        self.emit(f"{out} = tosa.{op} {x} : ({ty(self.shape[x])}) -> "
                  f"{ty(self.shape[x])}")
        return out

    def relu(self, x):
        out = self.fresh(self.shape[x])
        self.emit(f"{out} = tosa.clamp {x} {{max_val = {F32_MAX} : f32, "
                  f"min_val = 0.0 : f32}} : ({ty(self.shape[x])}) -> "
                  f"{ty(self.shape[x])}")
        return out

    def reduce(self, op, x, axis):
        shape = list(self.shape[x])
        shape[axis] = 1
        out = self.fresh(shape)
        self.emit(f"{out} = tosa.reduce_{op} {x} {{axis = {axis} : i32}} : "
                  f"({ty(self.shape[x])}) -> {ty(shape)}")
        return out

    def reshape(self, x, shape):
        assert math.prod(shape) == math.prod(self.shape[x]), (self.shape[x], shape)
        s = self.shape_const(shape)
        out = self.fresh(shape)
        self.emit(f"{out} = tosa.reshape {x}, {s} : ({ty(self.shape[x])}, "
                  f"!tosa.shape<{len(shape)}>) -> {ty(shape)}")
        return out

    def transpose(self, x, perms):
        shape = [self.shape[x][p] for p in perms]
        out = self.fresh(shape)
        p = ", ".join(str(v) for v in perms)
        self.emit(f"{out} = tosa.transpose {x} {{perms = array<i32: {p}>}} : "
                  f"({ty(self.shape[x])}) -> {ty(shape)}")
        return out

    def slice(self, x, start, size):
        s0 = self.shape_const(start)
        s1 = self.shape_const(size)
        out = self.fresh(size)
        r = len(size)
        self.emit(f"{out} = tosa.slice {x}, {s0}, {s1} : ({ty(self.shape[x])}, "
                  f"!tosa.shape<{r}>, !tosa.shape<{r}>) -> {ty(size)}")
        return out

    def concat(self, a, b, axis):
        shape = list(self.shape[a])
        shape[axis] += self.shape[b][axis]
        out = self.fresh(shape)
        self.emit(f"{out} = tosa.concat {a}, {b} {{axis = {axis} : i32}} : "
                  f"({ty(self.shape[a])}, {ty(self.shape[b])}) -> {ty(shape)}")
        return out

    def pool(self, kind, x, kernel, stride, pad):
        n, h, w, c = self.shape[x]
        pt, pb, pl, pr = pad
        oh = (h + pt + pb - kernel) // stride + 1
        ow = (w + pl + pr - kernel) // stride + 1
        out = self.fresh([n, oh, ow, c])
        attrs = (f"kernel = array<i64: {kernel}, {kernel}>, pad = array<i64: "
                 f"{pt}, {pb}, {pl}, {pr}>, stride = array<i64: {stride}, "
                 f"{stride}>")
        if kind == "max":
            self.emit(f"{out} = tosa.max_pool2d {x} {{{attrs}}} : "
                      f"({ty(self.shape[x])}) -> {ty([n, oh, ow, c])}")
        else:
            zp = self.zp()
            self.emit(f"{out} = tosa.avg_pool2d {x}, {zp}, {zp} {{acc_type = "
                      f"f32, {attrs}}} : ({ty(self.shape[x])}, {ty([1])}, "
                      f"{ty([1])}) -> {ty([n, oh, ow, c])}")
        return out

    def text(self, result, header):
        args = ",\n    ".join(f"{n}: {ty(s)}" for n, s, _ in self.args)
        lines = [f"// {line}" if line else "//" for line in header]
        lines.append("// Arguments:")
        for n, s, comment in self.args:
            lines.append(f"//   {n} {ty(s)}: {comment}")
        lines.append(f"func.func @{self.name}(\n    {args})\n"
                     f"    -> {ty(self.shape[result])} {{")
        lines.extend(self.body)
        lines.append(f"  return {result} : {ty(self.shape[result])}")
        lines.append("}")
        return "\n".join(lines) + "\n"


#===-------------------------------------------------------------------------===#
# ResNet-50 (v1.5: the stride sits on the 3x3 conv of a bottleneck), NHWC.
#===-------------------------------------------------------------------------===#

def resnet(name, batch, image, width, blocks, classes):
    e = Emitter(name)
    x = e.arg([batch, image, image, 3], "input image (NHWC)")

    def conv_bn(x, out_ch, k, stride, relu, what, gain=6.0):
        c = e.shape[x][-1]
        w = e.arg([out_ch, k, k, c], f"{what} weights (OHWI)")
        h = e.shape[x][1]
        if k == 1 and stride > 1 and (h - 1) % stride:
            # TOSA wants (H - 1) divisible by the stride: the last row and
            # column are not read by a 1x1 stride-2 conv anyway.
            hs = h - (h - 1) % stride
            x = e.slice(x, [0, 0, 0, 0], [e.shape[x][0], hs, hs, c])
            h = hs
        # "Same" padding, the extra pixel at the bottom/right (TF style).
        total = max((-(-h // stride) - 1) * stride + k - h, 0)
        pad = [total // 2, total - total // 2] * 2
        y = e.conv2d(x, w, 0.0, stride, pad)
        y = e.scale_shift(y, math.sqrt(gain / (k * k * c)), 0.01)
        return e.relu(y) if relu else y

    y = conv_bn(x, width, 7, 2, True, "stem conv 7x7/2")
    y = e.pool("max", y, 3, 2, [0, 1, 0, 1])
    in_ch = width
    for stage, count in enumerate(blocks):
        mid = width * 2 ** stage
        out_ch = mid * 4
        for block in range(count):
            stride = 2 if stage > 0 and block == 0 else 1
            what = f"stage {stage + 1} block {block + 1}"
            h = conv_bn(y, mid, 1, 1, True, what + " conv 1x1")
            h = conv_bn(h, mid, 3, stride, True, what + " conv 3x3")
            h = conv_bn(h, out_ch, 1, 1, False, what + " conv 1x1 expand",
                        gain=1.5)
            if block == 0:
                y = conv_bn(y, out_ch, 1, stride, False,
                            what + " projection 1x1", gain=1.5)
            y = e.relu(e.add(h, y))
        in_ch = out_ch
    n, h, w, c = e.shape[y]
    y = e.pool("avg", y, h, 1, [0, 0, 0, 0])
    y = e.reshape(y, [1, batch, c])
    fc = e.arg([1, c, classes], "classifier weights (in x out)")
    y = e.matmul(y, fc)
    y = e.scale_shift(y, math.sqrt(3.0 / c), 0.01)
    header = [f"ResNet-50 style network '{name}': batch {batch}, image "
              f"{image}x{image}x3, base width {width}, bottleneck blocks "
              f"{blocks}, {classes} classes."]
    return e, y, header


#===-------------------------------------------------------------------------===#
# Transformer encoder layers (BERT: post-norm; ViT: pre-norm).
#===-------------------------------------------------------------------------===#

def layer_norm(e, x):
    b, s, d = e.shape[x]
    inv = e.splat([1, 1, 1], 1.0 / d)
    mean = e.mul(e.reduce("sum", x, 2), inv)
    diff = e.sub(x, mean)
    var = e.mul(e.reduce("sum", e.mul(diff, diff), 2), inv)
    rstd = e.unary("rsqrt", e.add(var, e.splat([1, 1, 1], 1e-5)))
    return e.scale_shift(e.mul(diff, rstd), 1.0, 0.0)


def linear(e, x, out_dim, what):
    b, s, d = e.shape[x]
    w = e.arg([1, d, out_dim], f"{what} weights (in x out)")
    if b != 1:
        x = e.reshape(x, [1, b * s, d])
    y = e.matmul(x, w)
    y = e.scale_shift(y, math.sqrt(3.0 / d), 0.01)
    if b != 1:
        y = e.reshape(y, [b, s, out_dim])
    return y


def gelu(e, x):
    # The tanh approximation of GELU (the original BERT's):
    #   0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    #   = x * sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3)).
    # (tosa.erf and tosa.tanh lower to math.erf/math.tanh, which upstream's
    # CPU lowering to LLVM does not convert; tosa.sigmoid lowers to math.exp.)
    r = [1] * len(e.shape[x])
    x3 = e.mul(e.mul(x, x), x)
    inner = e.add(x, e.mul(x3, e.splat(r, 0.044715)))
    inner = e.mul(inner, e.splat(r, 2 * math.sqrt(2 / math.pi)))
    return e.mul(x, e.unary("sigmoid", inner))


def attention(e, x, heads):
    b, s, d = e.shape[x]
    hd = d // heads
    q = linear(e, x, d, "query")
    k = linear(e, x, d, "key")
    v = linear(e, x, d, "value")

    def split(t, perm):
        t = e.reshape(t, [b, s, heads, hd])
        t = e.transpose(t, perm)
        return e.reshape(t, [b * heads] + e.shape[t][2:])

    qh = split(q, [0, 2, 1, 3])  # [bh, s, hd]
    kt = split(k, [0, 2, 3, 1])  # [bh, hd, s]
    vh = split(v, [0, 2, 1, 3])  # [bh, s, hd]
    scores = e.mul(e.matmul(qh, kt), e.splat([1, 1, 1], 1 / math.sqrt(hd)))
    m = e.reduce("max", scores, 2)
    p = e.unary("exp", e.sub(scores, m))
    p = e.mul(p, e.unary("reciprocal", e.reduce("sum", p, 2)))
    ctx = e.matmul(p, vh)  # [bh, s, hd]
    ctx = e.reshape(ctx, [b, heads, s, hd])
    ctx = e.transpose(ctx, [0, 2, 1, 3])
    ctx = e.reshape(ctx, [b, s, d])
    return linear(e, ctx, d, "attention output")


def bert(name, seq, hidden, heads, ffn):
    e = Emitter(name)
    x = e.arg([1, seq, hidden], "hidden states (batch 1)")
    h = layer_norm(e, e.add(attention(e, x, heads), x))
    f = linear(e, gelu(e, linear(e, h, ffn, "feed-forward up")), hidden,
               "feed-forward down")
    y = layer_norm(e, e.add(f, h))
    header = [f"BERT-style encoder layer '{name}': batch 1, sequence {seq}, "
              f"hidden {hidden}, {heads} heads of {hidden // heads}, "
              f"feed-forward {ffn}, post-norm, GELU (tanh approximation)."]
    return e, y, header


def vit(name, image, patch, hidden, heads, mlp):
    e = Emitter(name)
    x = e.arg([1, image, image, 3], "input image (NHWC)")
    w = e.arg([hidden, patch, patch, 3], "patch embedding weights (OHWI)")
    y = e.conv2d(x, w, 0.01, patch, [0, 0, 0, 0])
    y = e.scale_shift(y, math.sqrt(3.0 / (patch * patch * 3)), None)
    g = image // patch
    y = e.reshape(y, [1, g * g, hidden])
    cls = e.arg([1, 1, hidden], "class token")
    y = e.concat(cls, y, 1)
    pos = e.arg([1, g * g + 1, hidden], "position embedding")
    y = e.add(y, pos)
    # One pre-norm encoder block.
    y = e.add(y, attention(e, layer_norm(e, y), heads))
    h = linear(e, gelu(e, linear(e, layer_norm(e, y), mlp, "MLP up")),
               hidden, "MLP down")
    y = e.add(y, h)
    header = [f"ViT block '{name}': image {image}x{image}x3, patches "
              f"{patch}x{patch} ({g * g} + 1 tokens), hidden {hidden}, "
              f"{heads} heads, MLP {mlp}: patch embedding (a {patch}x{patch} "
              f"stride-{patch} conv), class token, position embedding and one "
              f"pre-norm encoder block."]
    return e, y, header


MODELS = {
    # The real ones (benchmarks).
    "resnet50-b1": lambda n: resnet(n, 1, 224, 64, [3, 4, 6, 3], 1000),
    "resnet50-b8": lambda n: resnet(n, 8, 224, 64, [3, 4, 6, 3], 1000),
    "bert-s128": lambda n: bert(n, 128, 768, 12, 3072),
    "bert-s384": lambda n: bert(n, 384, 768, 12, 3072),
    "vit-b16": lambda n: vit(n, 224, 16, 768, 12, 3072),
    # Small variants with the same structure (tests).
    "resnet-tiny": lambda n: resnet(n, 2, 32, 8, [1, 1, 1, 1], 10),
    "bert-tiny": lambda n: bert(n, 16, 64, 4, 128),
    "vit-tiny": lambda n: vit(n, 32, 8, 64, 4, 128),
}
BENCH_MODELS = ["resnet50-b1", "resnet50-b8", "bert-s128", "bert-s384",
                "vit-b16"]

LOWERING = ("builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,"
            "tosa-to-arith,tosa-to-tensor),canonicalize)")


def generate(name):
    emitter, result, header = MODELS[name](name.replace("-", "_"))
    header = header + [
        f"Generated by scripts/gen-models.py {name} (TOSA, random weights as "
        "arguments).",
        "Lowered to linalg with: mlir-opt --pass-pipeline='" + LOWERING + "'",
    ]
    return emitter.text(result, header)


def main():
    parser = argparse.ArgumentParser(
        description="Write real models in TOSA and lower them to linalg "
                    "(<out>/<name>.tosa.mlir, <out>/<name>.mlir).")
    parser.add_argument("models", nargs="*",
                        help="models to write (default: the benchmark "
                             "models " + ", ".join(BENCH_MODELS) + ")")
    parser.add_argument("--out", default="build/models",
                        help="output directory (default: build/models)")
    parser.add_argument("--mlir-opt", default="/usr/lib/llvm-22/bin/mlir-opt",
                        help="upstream mlir-opt used for the lowering")
    parser.add_argument("--no-lower", action="store_true",
                        help="write only the TOSA files")
    parser.add_argument("--list", action="store_true",
                        help="list the models and exit")
    args = parser.parse_args()
    if args.list:
        for name in MODELS:
            print(name)
        return 0
    names = args.models or BENCH_MODELS
    for name in names:
        if name not in MODELS:
            print(f"gen-models.py: error: unknown model '{name}' (known: "
                  f"{', '.join(MODELS)})", file=sys.stderr)
            return 1
    os.makedirs(args.out, exist_ok=True)
    for name in names:
        tosa = os.path.join(args.out, name + ".tosa.mlir")
        with open(tosa, "w") as f:
            f.write(generate(name))
        if args.no_lower:
            print(tosa)
            continue
        linalg = os.path.join(args.out, name + ".mlir")
        try:
            proc = subprocess.run(
                [args.mlir_opt, "--pass-pipeline=" + LOWERING, tosa, "-o",
                 linalg],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        except OSError as err:
            print(f"gen-models.py: error: cannot run '{args.mlir_opt}': {err}",
                  file=sys.stderr)
            return 1
        if proc.returncode != 0:
            print(f"gen-models.py: error: lowering {tosa} failed:\n"
                  f"{proc.stderr}", file=sys.stderr)
            return 1
        print(linalg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
