"""The launch grid of a kbench user kernel: expressions over the shape's dims, such as
"(n + 1023) / 1024", evaluated as kbench's launcher does (integer arithmetic, `/` truncating).
Plain Python: no Triton needed."""

import ast
import operator

_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.floordiv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}


def evaluate(expression, dims):
    """The integer value of `expression` with the names in `dims` bound; ValueError for anything
    but integers, dim names, + - * / // % and parentheses."""

    def value(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in dims:
                raise ValueError(f"grid {expression!r}: unknown name {node.id!r}; the dims are "
                                 f"{sorted(dims)}")
            return int(dims[node.id])
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            right = value(node.right)
            if isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)) and right == 0:
                raise ValueError(f"grid {expression!r}: division by zero")
            return _BINARY[type(node.op)](value(node.left), right)
        raise ValueError(f"grid {expression!r}: only integers, dims and + - * / % are allowed")

    return value(ast.parse(str(expression), mode="eval").body)


def grid(expressions, dims):
    """The (x, y, z) grid of a KBENCH descriptor's `grid` for the given dims."""
    return tuple(evaluate(e, dims) for e in expressions)
