import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventBus } from '../../../server/events/bus.js';
import { Executor } from '../../../server/executor/executor.js';
import { pythonAnalyzers } from '../../../server/policy/analyzers/python.js';
import { PolicyEngine } from '../../../server/policy/engine.js';
import type { PolicyDecision } from '../../../server/decision.js';
import { MAX_PYTHON_CODE_CHARS, PythonAnalyzer } from '../../../server/security/python.js';
import { openStore, type Store } from '../../../server/store/index.js';
import { createRunPythonTool } from '../../../server/tools/builtin/run-python.js';
import { ToolRegistry } from '../../../server/tools/registry.js';
import type { AnyTool } from '../../../server/tools/types.js';
import { processesMatching } from '../../helpers/processes.js';

/*
 * Every snippet below is only parsed. The attack tables are never handed to an interpreter; the safe controls are
 * run for real only after the analyzer has allowed them.
 */

const analyzer = new PythonAnalyzer();

/** Every refusal must say what the person can do about it. */
const ACTIONABLE = /approve the call|approve it/i;

async function expectAsk(code: string, rule: string, mentions: RegExp): Promise<PolicyDecision> {
  const verdict = await analyzer.analyze(code);
  expect(verdict, `${JSON.stringify(code.slice(0, 80))} → ${verdict.rule}: ${verdict.reason}`).toMatchObject({ decision: 'ask', rule });
  expect(verdict.reason).toMatch(mentions);
  expect(verdict.reason).toMatch(ACTIONABLE);
  expect(verdict.reason.length).toBeLessThan(600);
  return verdict;
}

// [what it proves, code, expected output when run]
const SAFE_CONTROLS: Array<[string, string, string]> = [
  ['plain arithmetic', 'print(1 + 2 * 3, 7 // 2, 2 ** 10, -7 % 3)', '7 3 1024 2\n'],
  ['math.sqrt through an import', 'import math; print(math.sqrt(16))', '4.0\n'],
  ['a list comprehension with a condition', 'print([x * x for x in range(6) if x % 2])', '[1, 9, 25]\n'],
  ['dict and set comprehensions', 'print({k: len(k) for k in ["a", "bb"]}, sorted({c for c in "abca"}))', "{'a': 1, 'bb': 2} ['a', 'b', 'c']\n"],
  ['json.dumps and json.loads', 'import json\nprint(json.dumps({"b": [1, 2], "a": None}, sort_keys=True))\nprint(json.loads("[1, 2]")[1])', '{"a": null, "b": [1, 2]}\n2\n'],
  ['statistics.mean and median', 'import statistics\nprint(statistics.mean([1, 2, 3, 4]), statistics.median([3, 1, 2]))', '2.5 2\n'],
  ['datetime.date(...).isoformat()', 'import datetime; print(datetime.date(2024, 1, 1).isoformat())', '2024-01-01\n'],
  ['timedelta arithmetic from "from datetime import"', 'from datetime import datetime, timedelta\nprint((datetime(2024, 1, 1) + timedelta(days=31)).strftime("%Y-%m-%d"))', '2024-02-01\n'],
  ['re.findall with a raw pattern', 'import re; print(re.findall(r"\\d+", "a1b22c333"))', "['1', '22', '333']\n"],
  ['a function with a for loop', 'def fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\nprint(fib(30))', '832040\n'],
  ['a while loop with break and continue', 'i = 0\nwhile True:\n    i += 1\n    if i % 2:\n        continue\n    if i > 6:\n        break\nprint(i)', '8\n'],
  ['f-strings with conversions and format specs', 'name = "pi"; value = 3.14159\nprint(f"{name!r:>6} = {value:.2f}")', "  'pi' = 3.14\n"],
  ['collections.Counter via from-import', 'from collections import Counter; print(Counter("mississippi").most_common(1))', "[('i', 4)]\n"],
  ['itertools, functools.reduce and operator.mul', 'import itertools, functools, operator\nprint(len(list(itertools.permutations("abc"))), functools.reduce(operator.mul, range(1, 6)))', '6 120\n'],
  ['Fraction and Decimal with a precision', 'from fractions import Fraction\nfrom decimal import Decimal, getcontext\ngetcontext().prec = 5\nprint(Fraction(1, 3) + Fraction(1, 6), Decimal(1) / Decimal(7))', '1/2 0.14286\n'],
  ['a class with __init__, __repr__ and __add__', 'class P:\n    def __init__(self, x):\n        self.x = x\n    def __repr__(self):\n        return f"P({self.x})"\n    def __add__(self, other):\n        return P(self.x + other.x)\nprint(P(1) + P(2))', 'P(3)\n'],
  ['a dataclass with a default factory', 'from dataclasses import dataclass, field\n@dataclass\nclass Item:\n    name: str\n    tags: list = field(default_factory=list)\nprint(Item("a"))', "Item(name='a', tags=[])\n"],
  ['random with a seed', 'import random\nrandom.seed(1)\nprint(len([random.randint(1, 6) for _ in range(5)]))', '5\n'],
  ['str.format on a literal template', 'print("{0} has {1:>4} items".format("cart", 3))', 'cart has    3 items\n'],
  ['str.format on a name bound only to a literal', 'template = "{:.1f}%"\nprint(template.format(12.345))', '12.3%\n'],
  ['try/except printing the error', 'try:\n    1 / 0\nexcept ZeroDivisionError as error:\n    print("caught", error)', 'caught division by zero\n'],
  ['a generator function', 'def count(n):\n    i = 0\n    while i < n:\n        yield i\n        i += 1\nprint(sum(count(5)))', '10\n'],
  ['from math import *', 'from math import *\nprint(floor(pi))', '3\n'],
  ['hashlib and base64', 'import hashlib, base64\nprint(hashlib.sha256(b"abc").hexdigest()[:8], base64.b64encode(b"hi").decode())', 'ba7816bf aGk=\n'],
  ['a decorator using @functools.wraps and lru_cache', 'import functools\ndef logged(f):\n    @functools.wraps(f)\n    def inner(*args):\n        return f(*args)\n    return inner\n@logged\n@functools.lru_cache(maxsize=None)\ndef square(x):\n    return x * x\nprint(square(4), square.__name__)', '16 square\n'],
  ['structural pattern matching', 'match (1, 2):\n    case (a, b):\n        print(a + b)', '3\n'],
  ['the __name__ == "__main__" idiom', 'if __name__ == "__main__":\n    for k, v in sorted({"b": 2, "a": 1}.items()):\n        print(k, v)', 'a 1\nb 2\n'],
  ['type hints, including one written as text', 'from typing import List, Optional\ndef total(xs: List[int], start: "Optional[int]" = None) -> int:\n    return sum(xs) + (start or 0)\nprint(total([1, 2], 3))', '6\n'],
  ['textwrap, calendar, unicodedata and string constants', 'import textwrap, calendar, unicodedata, string\nprint(textwrap.shorten("a b c d e f", 7), calendar.isleap(2024), unicodedata.name("é"), string.digits)', 'a [...] True LATIN SMALL LETTER E WITH ACUTE 0123456789\n'],
  ['heapq and bisect with from __future__ import annotations', 'from __future__ import annotations\nimport heapq, bisect\nh = [5, 1, 3]\nheapq.heapify(h)\nprint(heapq.heappop(h), bisect.bisect([1, 2, 3], 2))', '1 2\n'],
  ['non-ASCII identifiers and full-width text in strings', '数量 = 3\nprint(数量 * 2, "ＡＢＣ")', '6 ＡＢＣ\n'],
  ['super().__init__() in a subclass', 'class Base:\n    def __init__(self):\n        self.ready = True\nclass Child(Base):\n    def __init__(self):\n        super().__init__()\nprint(Child().ready)', 'True\n'],
  ['type(x) with one argument', 'print(type(3).__name__, type("s") is str)', 'int True\n'],
  ['lambdas as sort keys', 'print(sorted(["bb", "a", "ccc"], key=lambda s: -len(s)))', "['ccc', 'bb', 'a']\n"],
  ['collections.abc through import collections.abc', 'import collections.abc\nprint(isinstance([], collections.abc.Sequence))', 'True\n'],
  ['decimal.localcontext in a with block', 'import decimal\nwith decimal.localcontext() as ctx:\n    ctx.prec = 3\n    print(decimal.Decimal(2).sqrt())', '1.41\n'],
  ['string.Template substitution', 'import string\nprint(string.Template("$who likes $what").substitute(who="tim", what="pie"))', 'tim likes pie\n'],
  ['an enum class', 'import enum\nclass Color(enum.Enum):\n    RED = 1\n    GREEN = 2\nprint(Color.GREEN.name, Color(1).name)', 'GREEN RED\n'],
  ['namedtuple helpers whose public names start with an underscore', 'from collections import namedtuple\nPoint = namedtuple("Point", "x y")\np = Point(1, 2)._replace(y=5)\nprint(p._asdict(), Point._fields)', "{'x': 1, 'y': 5} ('x', 'y')\n"],
  ['a variable that shares its name with a module', 'code = "abc"\nfor signal in [1]:\n    print(code.upper(), signal)', 'ABC 1\n'],
  ['assert, walrus and slices', 'data = list(range(10))\nassert (n := len(data)) == 10\nprint(data[2:8:3], n)', '[2, 5] 10\n'],
];

// [what it proves, code, rule, what the reason must name]
const MUST_ASK: Array<[string, string, string, RegExp]> = [
  ['import os', 'import os', 'python:import:os', /imports os, which can read and change files/],
  ['from os import system', 'from os import system', 'python:import:os', /imports os/],
  ['import os.path (a submodule of a refused package)', 'import os.path', 'python:import:os.path', /os\.path/],
  ['import subprocess', 'import subprocess', 'python:import:subprocess', /starts other programs/],
  ['import importlib', 'import importlib', 'python:import:importlib', /loads any module by name/],
  ['import ctypes', 'import ctypes', 'python:import:ctypes', /native code/],
  ['import socket', 'import socket', 'python:import:socket', /network connections/],
  ['import sys and sys.modules', "import sys; sys.modules['os']", 'python:import:sys', /sys\.modules/],
  ['import pickle', 'import pickle', 'python:import:pickle', /run any code while loading/],
  ['import shutil (never run: it would delete things)', "import shutil; shutil.rmtree('/')", 'python:import:shutil', /deletes files/],
  ['a third-party package that is not on the list', 'import numpy', 'python:import:numpy', /not on the list/],
  ['os.system without an import (it would only fail, but says what it is for)', "os.system('id')", 'python:import:os', /without importing it/],
  ['a relative import', 'from . import x', 'python:import:.', /relative to a package/],
  ['a joke __future__ feature that changes the grammar', 'from __future__ import barry_as_FLUFL', 'python:import:__future__', /barry_as_FLUFL/],
  ['__import__ by name', "__import__('os').system('id')", 'python:builtin:__import__', /__import__\(\)/],
  ['open a file', "open('/etc/passwd').read()", 'python:builtin:open', /open\(\), which reads or writes files/],
  ['exec of text', "exec('print(1)')", 'python:builtin:exec', /exec\(\)/],
  ['eval of text', "eval('1+1')", 'python:builtin:eval', /eval\(\)/],
  ['compile of text', "compile('1', 'x', 'eval')", 'python:builtin:compile', /compile\(\)/],
  ['getattr with a name built at run time', "getattr(__builtins__, 'ev' + 'al')('1')", 'python:builtin:getattr', /getattr\(\)/],
  ['setattr by name', "setattr(print, 'x', 1)", 'python:builtin:setattr', /setattr\(\)/],
  ['globals() to reach __builtins__', "globals()['__builtins__']", 'python:builtin:globals', /globals\(\)/],
  ['locals()', 'print(locals())', 'python:builtin:locals', /locals\(\)/],
  ['exec reached through vars()', "vars()['exec']('1')", 'python:builtin:vars', /vars\(\)/],
  ['dir() to list hidden attributes', 'print(dir())', 'python:builtin:dir', /dir\(\)/],
  ['breakpoint() starts a debugger', 'breakpoint()', 'python:builtin:breakpoint', /debugger/],
  ['help() can start a pager', 'help()', 'python:builtin:help', /pager/],
  ['input() waits for a person', 'name = input()', 'python:builtin:input', /standard input/],
  ['memoryview()', "memoryview(b'x')", 'python:builtin:memoryview', /memory/],
  ['eval passed as a value to map', "print(*map(eval, ['1']))", 'python:builtin:eval', /eval\(\)/],
  ['eval as a decorator', '@eval\ndef f():\n    pass', 'python:builtin:eval', /eval\(\)/],
  ['type() with three arguments builds a class', "type('X', (), {})", 'python:builtin:type', /builds a class from a dictionary/],
  ['type used as a metaclass base', 'class Meta(type):\n    pass', 'python:builtin:type', /one-argument call/],
  ['().__class__.__base__.__subclasses__()', '().__class__.__base__.__subclasses__()', 'python:dunder', /__class__/],
  ['[c for c in ().__class__.__mro__]', '[c for c in ().__class__.__mro__]', 'python:dunder', /__class__/],
  ['a lambda\'s __globals__', '(lambda: 0).__globals__', 'python:dunder', /__globals__/],
  ['__builtins__.__dict__', "__builtins__.__dict__['eval']", 'python:dunder', /__builtins__/],
  ['__loader__ of a module', 'import json; json.__loader__', 'python:dunder', /__loader__/],
  ['__loader__ as a bare name', "__loader__.load_module('os')", 'python:dunder', /__loader__/],
  ['a dunder inside an f-string', "print(f'{().__class__}')", 'python:dunder', /__class__/],
  ['binding the name __builtins__', 'import math as __builtins__', 'python:dunder', /__builtins__/],
  ['__match_args__ naming a frame attribute', "class B:\n    __match_args__ = ('gi_frame',)", 'python:dunder', /__match_args__/],
  ['a private attribute of a library module', "import random; random._os.system('id')", 'python:private-attribute', /_os/],
  ['a private attribute of a value', 'class Account:\n    def __init__(self):\n        self._balance = 0', 'python:private-attribute', /_balance.*without the leading underscore/],
  ['a generator frame, with no underscore at all', "g = (x for x in [1])\ng.gi_frame.f_builtins['eval']('1')", 'python:introspection', /gi_frame/],
  ['a traceback frame', 'try:\n    1 / 0\nexcept Exception as e:\n    e.__traceback__.tb_frame.f_back', 'python:dunder', /__traceback__/],
  ['a frame attribute read by a match pattern', 'match 1:\n    case object(gi_frame=f):\n        pass', 'python:introspection', /gi_frame/],
  ['a frame read inside a format template', "'{0.gi_frame.f_globals}'.format((x for x in []))", 'python:introspection', /gi_frame/],
  ['a dunder read inside a format template', "'{0.__class__.__base__}'.format(1)", 'python:dunder', /format template.*__class__/],
  ['a dunder in a nested format spec', "'{0:{1.__class__}}'.format(1, 2)", 'python:dunder', /__class__/],
  ['a format template built at run time', "fmt = '{0.' + '__class__}'\nfmt.format(1)", 'python:dynamic-format', /not a literal string/],
  ['a literal template changed later', "t = '{}'\nt += '{0.__class__}'\nt.format(1)", 'python:dynamic-format', /not a literal string/],
  ['str.format called through the class', "str.format('{0.__class__}', 1)", 'python:dynamic-format', /not a literal string/],
  ['sys reached through datetime.sys', "import datetime; datetime.sys.modules['os'].system('id')", 'python:import:sys', /datetime\.sys/],
  ['codecs reached through json.codecs', "import json; json.codecs.open('/etc/passwd').read()", 'python:import:codecs', /json\.codecs/],
  ['builtins reached through enum.bltns', "import enum; enum.bltns.eval('1')", 'python:import:builtins', /enum\.bltns/],
  ['sys imported from a pure module', 'from datetime import sys', 'python:import:sys', /sys/],
  ['operator.attrgetter is getattr by another name', "import operator; operator.attrgetter('__class__')(1)", 'python:function:operator.attrgetter', /getattr/],
  ['string.Formatter reads attributes named in templates', 'from string import Formatter', 'python:function:string.Formatter', /format strings/],
  ['typing.get_type_hints evaluates text', 'import typing; typing.get_type_hints(print)', 'python:function:typing.get_type_hints', /eval/],
  ['functools.singledispatch evaluates annotations', 'from functools import singledispatch', 'python:function:functools.singledispatch', /annotations as code/],
  ['functools.update_wrapper copies attributes by name', "import functools\nfunctools.update_wrapper(object(), print, ('__globals__',))", 'python:function:functools.update_wrapper', /attributes named by text/],
  ['the partial from functools.wraps called with updated=', "import functools\ndef g():\n    pass\nfunctools.wraps(print)(g, assigned=(), updated=('__globals__',))", 'python:function:functools.wraps', /decorator/],
  ['dataclasses.make_dataclass builds classes from a dictionary', 'from dataclasses import make_dataclass', 'python:function:dataclasses.make_dataclass', /dictionary/],
  ['a command-line entry point', 'import calendar; calendar.main()', 'python:function:calendar.main', /command-line entry point/],
  ['zoneinfo pointed at another folder', "import zoneinfo; zoneinfo.reset_tzpath(['/etc'])", 'python:function:zoneinfo.reset_tzpath', /folder on disk/],
  ['a star import that brings in attrgetter', 'from operator import *', 'python:star-import', /attrgetter/],
  ['a submodule that is not on the list', 'from json import tool', 'python:module-attribute', /json\.tool/],
  ['a module stored in a variable', 'import math as m\nx = m\nprint(x)', 'python:module-as-value', /module m as a value/],
  ['a module hidden in a list', 'import datetime as d\nmods = [d]\nprint(mods[0].sys)', 'python:module-as-value', /module d/],
  ['a module imported into a class body', "class A:\n    import datetime\nA.datetime.sys.modules['os']", 'python:module-as-value', /class A/],
  ['writing to a module attribute', 'import math; math.pi = 3', 'python:module-write', /math\.pi/],
  ['monkey-patching a library class', 'import json\njson.JSONEncoder.default = lambda self, o: 1', 'python:module-write', /json\.JSONEncoder\.default/],
  ['a class built from a dictionary with a dunder key', "t = type(type(1))\nC = t('C', (), {'__getattr__': lambda self, n: n})", 'python:dunder', /__getattr__ as text/],
  ['a frame attribute spelled as text', "names = ['gi_frame']", 'python:introspection', /gi_frame as text/],
  ['defining __getattr__', 'class A:\n    def __getattr__(self, name):\n        return name', 'python:dunder-method', /__getattr__/],
  ['a string annotation that imports os', "def f(x: \"__import__('os').system('id')\"):\n    pass", 'python:builtin:__import__', /__import__/],
  ['async code', 'async def f():\n    await g()', 'python:unsupported:AsyncFunctionDef', /async function/],
  ['ｅｘｅｃ in full-width letters', 'ｅｘｅｃ("1")', 'python:unicode-lookalike', /ｅｘｅｃ.*reads it as exec/],
  ['ｏｐｅｎ in full-width letters', "ｏｐｅｎ('x')", 'python:unicode-lookalike', /reads it as open/],
  ['exec in mathematical bold letters', '𝐞𝐱𝐞𝐜("1")', 'python:unicode-lookalike', /reads it as exec/],
  ['a UTF-7 coding cookie that hides a line break', '# coding: utf-7\n+AAo-import os', 'python:encoding', /utf-7/],
  ['a syntax error', 'def f(:', 'python:syntax-error', /does not parse.*line 1/],
  ['NUL bytes in the source', 'print(1)\0', 'python:syntax-error', /null bytes/],
  ['parentheses nested past the parser limit', '('.repeat(250) + '1' + ')'.repeat(250), 'python:syntax-error', /too many nested parentheses/],
  ['5000 nested unary minus signs', '-'.repeat(5000) + '1', 'python:too-complex', /too deeply/],
  ['code over the size limit', '#'.repeat(MAX_PYTHON_CODE_CHARS + 1), 'python:too-large', /100000/],
];

const MORE_REFUSED_MODULES = [
  'multiprocessing', 'threading', 'asyncio', 'signal', 'tempfile', 'glob', 'pathlib', 'io', 'builtins', 'inspect',
  'gc', 'types', 'code', 'runpy', 'marshal', 'urllib.request', 'http.client', 'resource',
];

describe('PythonAnalyzer: safe controls are allowed', () => {
  it.each(SAFE_CONTROLS)('allows %s', async (_what, code) => {
    const verdict = await analyzer.analyze(code);
    expect(verdict, `${verdict.rule}: ${verdict.reason}`).toMatchObject({ decision: 'allow', rule: 'python:pure' });
    expect(verdict.reason).toMatch(/only computes/);
  });

  it('names the modules the code uses when it allows', async () => {
    const verdict = await analyzer.analyze('import math, json\nprint(math.pi, json.dumps(1))');
    expect(verdict.reason).toContain('modules: json, math');
  });
});

describe('PythonAnalyzer: everything that is not pure computation asks', () => {
  it.each(MUST_ASK)('asks for %s', async (_what, code, rule, mentions) => {
    await expectAsk(code, rule, mentions);
  });

  it.each(MORE_REFUSED_MODULES)('asks for import %s', async (module) => {
    await expectAsk(`import ${module}`, `python:import:${module}`, new RegExp(`imports ${module.replace('.', '\\.')}`));
  });

  it('gives every one of many concurrent checks its own verdict', async () => {
    const codes = Array.from({ length: 12 }, (_, i) => (i % 2 ? `print(${i})` : `import os  # ${i}`));
    const verdicts = await Promise.all(codes.map((code) => analyzer.analyze(code)));
    verdicts.forEach((verdict, i) => expect(verdict.rule).toBe(i % 2 ? 'python:pure' : 'python:import:os'));
  });

  it('reports the first problem and counts the rest', async () => {
    const verdict = await expectAsk('import os\nopen("x")\neval("1")', 'python:import:os', /imports os/);
    expect(verdict.reason).toContain('2 more things in this code also need approval');
  });

  it('never says allow for code longer than the limit, without starting Python', async () => {
    const verdict = await new PythonAnalyzer({ python: '/nonexistent/python3' }).analyze('1\n'.repeat(MAX_PYTHON_CODE_CHARS));
    expect(verdict.rule).toBe('python:too-large');
  });
});

describe('PythonAnalyzer: fails closed', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pincer-fake-python-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** A stand-in interpreter: answers the path question like Python, then does `body` for the analysis. */
  function fakePython(name: string, body: string): string {
    const path = join(dir, name);
    writeFileSync(path, `#!/bin/sh\ncase "$*" in *sys.executable*) printf '%s' "$0"; exit 0;; esac\n${body}\n`);
    chmodSync(path, 0o755);
    return path;
  }

  it('asks when python3 is missing', async () => {
    const verdict = await new PythonAnalyzer({ python: join(dir, 'no-such-python3') }).analyze('print(1)');
    expect(verdict).toMatchObject({ decision: 'ask', rule: 'python:analyzer-failed' });
    expect(verdict.reason).toMatch(/could not run \(could not start .*no-such-python3.*Approve the call/);
  });

  it('asks when the checker crashes', async () => {
    const verdict = await new PythonAnalyzer({ python: fakePython('crash', 'exit 3') }).analyze('print(1)');
    expect(verdict).toMatchObject({ decision: 'ask', rule: 'python:analyzer-failed' });
    expect(verdict.reason).toMatch(/exited with status 3.*Approve the call/);
  });

  it('asks when the checker prints something that is not a verdict', async () => {
    const verdict = await new PythonAnalyzer({ python: fakePython('garbage', "cat >/dev/null; echo 'allow'") }).analyze('print(1)');
    expect(verdict).toMatchObject({ decision: 'ask', rule: 'python:analyzer-failed' });
  });

  it('accepts "allow" only from the python:pure rule', async () => {
    const liar = fakePython('liar', 'cat >/dev/null; echo \'{"decision":"allow","rule":"python:import:os","reason":"fine"}\'');
    const verdict = await new PythonAnalyzer({ python: liar }).analyze('import os');
    expect(verdict).toMatchObject({ decision: 'ask', rule: 'python:analyzer-failed' });
  });

  it('asks when the checker hangs, and kills it after the 5 s limit', async () => {
    const pause = `59.${process.pid}`; // an unusual duration, to find the sleeper by
    const hang = fakePython('hang', `cat >/dev/null; sleep ${pause}; echo done`);
    const started = Date.now();
    const verdict = await new PythonAnalyzer({ python: hang }).analyze('print(1)');
    expect(verdict).toMatchObject({ decision: 'ask', rule: 'python:analyzer-failed' });
    expect(verdict.reason).toMatch(/longer than 5 s/);
    expect(Date.now() - started).toBeLessThan(9_000);
    // Both the stand-in (found by its path) and the child it started are gone.
    expect(processesMatching(hang)).toEqual([]);
    expect(processesMatching(`sleep ${pause}`)).toEqual([]);
  }, 20_000);
});

describe('pythonAnalyzers: the policy wiring', () => {
  it('judges run_python by its code argument', async () => {
    const analyzers = pythonAnalyzers(analyzer);
    expect(Object.keys(analyzers)).toEqual(['run_python']);
    expect(await analyzers.run_python!({ code: 'print(2 + 2)' })).toMatchObject({ decision: 'allow', rule: 'python:pure' });
    expect(await analyzers.run_python!({ code: 'import os' })).toMatchObject({ decision: 'ask', rule: 'python:import:os' });
    expect(await analyzers.run_python!({})).toMatchObject({ decision: 'allow', rule: 'python:pure' });
  });
});

describe('run_python through the executor: POST /policy/check verdicts, and real runs of what is allowed', () => {
  let dir: string;
  let store: Store;
  let executor: Executor;
  const ran: string[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pincer-python-policy-'));
    store = openStore(join(dir, 'pincer.db'));
    const registry = new ToolRegistry();
    const real = createRunPythonTool();
    // The real tool, with a record of every code it was asked to run.
    const spy: AnyTool = {
      ...real,
      handler: (args, ctx) => {
        ran.push(String(args.code));
        return real.handler(args, ctx);
      },
    };
    registry.register(spy);
    executor = new Executor({
      registry,
      store,
      events: new EventBus(),
      policy: new PolicyEngine(pythonAnalyzers(analyzer)),
      defaultTimeoutMs: 30_000,
      maxOutputBytes: 1024 * 1024,
    });
  });

  afterAll(async () => {
    await executor.shutdown(0);
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a dry run of a pure snippet allows it', async () => {
    expect(await executor.dryRun({ tool: 'run_python', arguments: { code: 'print(1)' }, client: 'test' })).toMatchObject({
      decision: 'allow',
      rule: 'python:pure',
    });
  });

  it.each(MUST_ASK.filter(([, code]) => code.length <= MAX_PYTHON_CODE_CHARS))(
    'a dry run of %s asks with the same rule, and runs nothing',
    async (_what, code, rule) => {
      const verdict = await executor.dryRun({ tool: 'run_python', arguments: { code }, client: 'test' });
      expect(verdict).toMatchObject({ decision: 'ask', rule });
      expect(ran).toEqual([]);
    },
  );

  it('runs every safe control, only after it was allowed, and gets the expected output', async () => {
    for (const [what, code, expected] of SAFE_CONTROLS) {
      const verdict = await analyzer.analyze(code);
      if (verdict.decision !== 'allow') throw new Error(`${what} was not allowed (${verdict.rule}); not running it`);
      const outcome = await executor.execute({ tool: 'run_python', arguments: { code }, client: 'test', via: 'test' });
      expect(outcome.envelope, what).toMatchObject({ success: true, result: { stdout: expected, stderr: '', exit_code: 0 } });
    }
    expect(ran).toHaveLength(SAFE_CONTROLS.length);
  }, 60_000);
});

