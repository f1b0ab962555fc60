"""Static safety check of run_python code, with Python's own parser (docs/security.md, "The policy": Python).

Usage: python3 -I -S python-analyzer.py '<JSON list of pure modules>' < code.py

Reads the code on standard input, never executes it (it is only parsed with ast and walked against allowlists),
and writes one JSON verdict on standard output: {"decision": "allow" | "ask", "rule": "python:...", "reason": "..."}.
Only provably pure computation is allowed ("python:pure"); everything else asks, with the rule that decided and what
the person can do. The gateway (server/security/python.ts) passes the reviewed list of pure modules,
PYTHON_PURE_MODULES, as the one argument, so that list is kept in one place.
"""

import ast
import codecs
import importlib
import io
import json
import string
import sys
import tokenize
import types
import unicodedata

import _string

MAX_CHARS = 100000
MAX_NODES = 200000
MAX_FINDINGS = 50
MAX_ANNOTATION_DEPTH = 4

# Pure computation: nothing here reads files, starts programs, opens sockets or reaches interpreter internals
# through a public name. Module-valued attributes (datetime.sys, json.codecs) are refused separately. Set by main()
# from the command line.
ALLOWED_MODULES = frozenset()
SHORT_MODULE_LIST = 'math, statistics, json, datetime, re, collections, itertools, functools, random, decimal, fractions'

FUTURE_FEATURES = frozenset([
    'nested_scopes', 'generators', 'division', 'absolute_import', 'with_statement', 'print_function',
    'unicode_literals', 'generator_stop', 'annotations',
])

# Public functions of allowed modules that look things up by a name given as text, evaluate text as code, or
# touch the file system.
DENIED_FUNCTIONS = {
    'operator': {
        'attrgetter': 'looks attributes up by a name given as text, like getattr()',
        'methodcaller': 'calls methods by a name given as text, like getattr()',
    },
    'functools': {
        'update_wrapper': 'copies attributes named by text, like getattr() and setattr()',
        'singledispatch': 'evaluates type annotations as code when a function is registered',
        'singledispatchmethod': 'evaluates type annotations as code when a method is registered',
    },
    'typing': {
        'get_type_hints': 'evaluates annotations written as text, like eval()',
        'ForwardRef': 'compiles text into code that can be evaluated later',
    },
    'string': {'Formatter': 'looks attributes up by names written inside format strings'},
    'dataclasses': {'make_dataclass': 'builds classes from a dictionary of arbitrary attributes'},
    'enum': {'global_enum': 'writes names into another module\'s namespace'},
    'zoneinfo': {'reset_tzpath': 'points time-zone loading at any folder on disk'},
}
# Command-line entry points (base64.main, calendar.main) read arguments and files.
DENIED_EVERYWHERE = {'main': 'is a command-line entry point', 'test': 'is a self-test entry point'}

# Callables that are harmless in one form only. type(x) tells the class of x; type(name, bases, namespace) builds a
# class from a dictionary. @functools.wraps(f) is the decorator idiom; anything else (more arguments, or calling
# the partial it returns with assigned=/updated=) copies attributes named by text, __globals__ included.
ONE_ARGUMENT_ONLY = {
    'type': ('as a one-argument call type(x)', 'with more than one argument it builds a class from a dictionary of attributes', 'Call it with a single argument only, or approve the call.'),
    'functools.wraps': ('as a decorator @wraps(func)', 'used any other way it copies attributes named by text, such as __globals__', 'Use it only as @wraps(func) on a function definition, or approve the call.'),
}

DANGEROUS_BUILTINS = {
    'open': ('reads or writes files', 'If reading or writing that file is intended, approve the call; or put the data in the code instead.'),
    'exec': ('runs code built from text, which this check cannot see', None),
    'eval': ('runs code built from text, which this check cannot see', None),
    'compile': ('turns text into code, which this check cannot see', None),
    '__import__': ('loads any module by name, including ones that touch files, programs or the network', None),
    'getattr': ('looks attributes up by a name given as text, a common way to reach interpreter internals', 'Use plain attribute access (obj.name) instead, or approve the call.'),
    'setattr': ('changes attributes by a name given as text, a common way to reach interpreter internals', 'Use plain attribute assignment (obj.name = value) instead, or approve the call.'),
    'delattr': ('deletes attributes by a name given as text', None),
    'hasattr': ('probes attributes by a name given as text', None),
    'globals': ('exposes the module namespace, including the built-ins exec and open', None),
    'locals': ('exposes the namespace of the running code', None),
    'vars': ('exposes the attribute dictionary of objects and modules', None),
    'dir': ('lists hidden attributes, the first step of most sandbox escapes', None),
    'input': ('waits for someone to type on standard input', 'Put the data in the code itself, or approve the call.'),
    'breakpoint': ('starts an interactive debugger that can run any code', None),
    'help': ('starts the interactive help system, which can run a pager program', None),
    'license': ('shows site information through an interactive pager', None),
    'credits': ('shows site information through an interactive pager', None),
    'copyright': ('shows site information through an interactive pager', None),
    'memoryview': ('gives raw access to memory buffers', None),
    '__build_class__': ('builds classes from internal parts', None),
}

MODULE_WHY = {
    'os': 'can read and change files, start programs and read environment variables',
    'posix': 'can read and change files, start programs and read environment variables',
    'nt': 'can read and change files, start programs and read environment variables',
    'sys': 'reaches the interpreter itself (sys.modules holds every loaded module, including os)',
    'subprocess': 'starts other programs',
    'pty': 'starts other programs',
    'socket': 'opens network connections',
    'ssl': 'opens network connections',
    'select': 'works with network connections and other file descriptors',
    'selectors': 'works with network connections and other file descriptors',
    'urllib': 'downloads and uploads over the network',
    'http': 'talks to servers over the network',
    'requests': 'talks to servers over the network',
    'ftplib': 'talks to servers over the network',
    'smtplib': 'sends e-mail over the network',
    'importlib': 'loads any module by name',
    'pkgutil': 'finds and loads modules by name',
    'zipimport': 'loads code from archives',
    'ctypes': 'calls native code and can read or write any memory',
    'cffi': 'calls native code and can read or write any memory',
    'mmap': 'maps files and memory directly',
    'pickle': 'can run any code while loading data',
    '_pickle': 'can run any code while loading data',
    'marshal': 'loads raw code objects',
    'shelve': 'reads and writes files and unpickles data, which can run any code',
    'dill': 'can run any code while loading data',
    'shutil': 'copies, moves and deletes files',
    'pathlib': 'reads and writes files',
    'io': 'opens files',
    'codecs': 'opens files',
    'fileinput': 'reads files',
    'linecache': 'reads files',
    'tempfile': 'creates files',
    'glob': 'lists files',
    'fnmatch': 'matches file names',
    'zipfile': 'reads and writes archives on disk',
    'tarfile': 'reads and writes archives on disk',
    'sqlite3': 'reads and writes database files',
    'builtins': 'holds exec, eval, open and __import__',
    'inspect': 'reaches stack frames and interpreter internals',
    'gc': 'reaches every live object, including hidden ones',
    'types': 'builds functions and code objects directly',
    'code': 'runs code given as text',
    'codeop': 'compiles code given as text',
    'runpy': 'runs other modules and files',
    'traceback': 'reaches stack frames and their variables',
    'multiprocessing': 'starts processes',
    'concurrent': 'starts processes and threads',
    'threading': 'starts threads that keep running on their own',
    '_thread': 'starts threads that keep running on their own',
    'asyncio': 'starts programs and opens network connections',
    'signal': 'changes how the process reacts to signals',
    'resource': 'changes the limits this run is held to',
    'platform': 'runs programs to learn about the machine',
    'uuid': 'may run programs to read the network card address',
    'webbrowser': 'opens a web browser',
    'getpass': 'reads the user name and passwords from the terminal',
    'pwd': 'reads the account database',
    'grp': 'reads the account database',
    'logging': 'writes log files and formats records with attribute lookups',
    'warnings': 'reaches stack frames',
    'atexit': 'registers code to run at interpreter exit',
    'site': 'changes where modules are loaded from',
    'sysconfig': 'reads interpreter configuration',
    'numpy': 'is not on the list of modules this check knows to be pure (numpy can read and write files)',
    'pandas': 'is not on the list of modules this check knows to be pure (pandas reads and writes files)',
}
DEFAULT_MODULE_WHY = 'is not on the list of modules this check knows to be pure computation'

OPERATOR_DUNDERS = frozenset(
    ['__init__', '__repr__', '__str__', '__format__', '__bytes__', '__hash__', '__bool__', '__len__',
     '__length_hint__', '__iter__', '__next__', '__reversed__', '__contains__', '__getitem__', '__setitem__',
     '__delitem__', '__missing__', '__call__', '__enter__', '__exit__', '__int__', '__float__', '__complex__',
     '__index__', '__round__', '__trunc__', '__floor__', '__ceil__', '__neg__', '__pos__', '__abs__', '__invert__',
     '__lt__', '__le__', '__eq__', '__ne__', '__gt__', '__ge__', '__post_init__']
    + ['__%s%s__' % (prefix, op) for prefix in ('', 'r', 'i') for op in (
        'add', 'sub', 'mul', 'matmul', 'truediv', 'floordiv', 'mod', 'divmod', 'pow', 'lshift', 'rshift', 'and',
        'xor', 'or')]
)
# Dunder attributes that only give a name, a docstring, or the operator the syntax would call anyway.
SAFE_DUNDER_ATTRIBUTES = OPERATOR_DUNDERS | {'__name__', '__qualname__', '__doc__'}
# Dunder methods a class may define; the rest (__getattr__, __set_name__, __init_subclass__, __reduce__...) are
# called by the interpreter with its own objects.
SAFE_DUNDER_METHODS = OPERATOR_DUNDERS | {'__new__'}
# Dunder names a program may use as plain variables.
SAFE_DUNDER_NAMES = frozenset(['__name__', '__doc__', '__debug__', '__file__', '__slots__', '__all__'])
# Public API of namedtuples, underscored only to stay clear of field names.
NAMEDTUPLE_API = frozenset(['_asdict', '_replace', '_fields', '_field_defaults', '_make'])
# Frames, code objects and tracebacks: gen.gi_frame.f_builtins['eval'] needs no underscore at all.
INTROSPECTION_PREFIXES = ('gi_', 'cr_', 'ag_', 'f_', 'tb_', 'co_')
# The same names written as text; only code that looks attributes up by name cares, and pure code has no reason to.
INTROSPECTION_NAMES = frozenset([
    'gi_frame', 'gi_code', 'gi_yieldfrom', 'cr_frame', 'cr_code', 'cr_await', 'ag_frame', 'ag_code', 'ag_await',
    'f_globals', 'f_builtins', 'f_locals', 'f_back', 'f_code', 'tb_frame', 'tb_next', 'co_code', 'co_consts',
])

ALLOWED_NODES = frozenset([
    'Module', 'Expr', 'Assign', 'AugAssign', 'AnnAssign', 'Delete', 'Pass', 'Break', 'Continue', 'Return',
    'If', 'For', 'While', 'With', 'withitem', 'Raise', 'Try', 'TryStar', 'ExceptHandler', 'Assert',
    'Import', 'ImportFrom', 'alias', 'Global', 'Nonlocal', 'FunctionDef', 'ClassDef', 'Lambda', 'arguments',
    'arg', 'keyword', 'Yield', 'YieldFrom',
    'BoolOp', 'NamedExpr', 'BinOp', 'UnaryOp', 'IfExp', 'Compare', 'Call', 'Constant', 'Name', 'Attribute',
    'Subscript', 'Slice', 'Starred', 'List', 'Tuple', 'Dict', 'Set', 'ListComp', 'SetComp', 'DictComp',
    'GeneratorExp', 'comprehension', 'JoinedStr', 'FormattedValue',
    'Match', 'match_case', 'MatchValue', 'MatchSingleton', 'MatchSequence', 'MatchMapping', 'MatchClass',
    'MatchStar', 'MatchAs', 'MatchOr',
    'Load', 'Store', 'Del', 'And', 'Or', 'Add', 'Sub', 'Mult', 'MatMult', 'Div', 'Mod', 'Pow', 'LShift',
    'RShift', 'BitOr', 'BitXor', 'BitAnd', 'FloorDiv', 'Invert', 'Not', 'UAdd', 'USub', 'Eq', 'NotEq', 'Lt',
    'LtE', 'Gt', 'GtE', 'Is', 'IsNot', 'In', 'NotIn', 'TypeIgnore',
])
UNSUPPORTED_WHY = {
    'AsyncFunctionDef': 'defines an async function',
    'AsyncFor': 'uses async for',
    'AsyncWith': 'uses async with',
    'Await': 'uses await',
}

APPROVE = 'Approve the call if you trust this code.'
HIDDEN_ADVICE = 'Ordinary code does not need hidden attributes: rewrite it without them to run without approval, or approve the call if you trust it.'
IMPORT_ADVICE = 'Approve the call if you trust what the code does with it; code that only uses pure-computation modules (' + SHORT_MODULE_LIST + '...) runs without approval.'

MISSING = object()


def nfkc(name):
    # Python NFKC-normalises identifiers itself (fullwidth e-x-e-c is exec); normalise again so no check sees a raw form.
    return unicodedata.normalize('NFKC', name)


def is_dunder(name):
    return len(name) > 4 and name.startswith('__') and name.endswith('__')


def module_why(name):
    top = name.split('.')[0]
    return MODULE_WHY.get(name) or MODULE_WHY.get(top) or DEFAULT_MODULE_WHY


def attribute_problem(attr):
    """Why reading this attribute of any object needs approval, or None."""
    if is_dunder(attr):
        if attr in SAFE_DUNDER_ATTRIBUTES:
            return None
        return ('python:dunder', 'reads the hidden attribute %s, the usual way into interpreter internals' % attr, HIDDEN_ADVICE)
    if attr.startswith('_') and attr not in NAMEDTUPLE_API:
        return ('python:private-attribute', 'reads the private attribute %s; private attributes of library objects lead to their internals (random._os is the os module)' % attr, 'If it is your own attribute, name it without the leading underscore; otherwise approve the call if you trust the code.')
    if attr.startswith(INTROSPECTION_PREFIXES):
        return ('python:introspection', 'reads %s, which reaches stack frames, code objects or tracebacks (and through them the built-ins exec and open)' % attr, HIDDEN_ADVICE)
    return None


class TooManyFindings(Exception):
    pass


class Verdict(Exception):
    def __init__(self, rule, reason):
        Exception.__init__(self, rule)
        self.rule = rule
        self.reason = reason


class Checker:
    def __init__(self, text):
        self.text = text
        self.findings = []
        self.modules = {}           # module name -> module object (allowed modules only)
        self.module_alias = {}      # local name -> module name
        self.one_arg = {'type': 'type'}  # local name -> ONE_ARGUMENT_ONLY key
        self.used_modules = set()
        self.module_base_ok = set()  # ids of Name/Attribute nodes used as '<module>.<attr>'
        self.one_arg_ok = set()      # ids of callee nodes called with exactly one positional argument
        self.decorators = set()      # ids of decorator expressions
        self.decorator_ok = set()    # ids of callee nodes in '@callee(one_argument)'
        self.module_memo = {}
        self.const_strings = {}
        self.bound = set()           # every name the code binds anywhere
        self.star_import = False

    # -- findings --------------------------------------------------------------------------------------------
    def add(self, node, rule, what, advice=None):
        position = tuple(getattr(node, field, None) or 0 for field in ('lineno', 'col_offset', 'end_lineno', 'end_col_offset'))
        where = 'Line %d: ' % position[0] if position[0] else ''
        self.findings.append((position, rule, where + 'the code ' + what + '. ' + (advice or APPROVE)))
        if len(self.findings) >= MAX_FINDINGS:
            raise TooManyFindings()

    # -- modules ---------------------------------------------------------------------------------------------
    def load(self, name):
        if name not in self.modules:
            self.modules[name] = importlib.import_module(name)
        return self.modules[name]

    def check_module_name(self, node, full):
        """Whether 'full' (and every package above it) may be imported; records a finding if not."""
        parts = full.split('.')
        for i in range(1, len(parts) + 1):
            prefix = '.'.join(parts[:i])
            if prefix not in ALLOWED_MODULES:
                self.add(node, 'python:import:' + full, 'imports %s, which %s' % (full, module_why(full)), IMPORT_ADVICE)
                return False
        try:
            self.load(full)
        except Exception:
            self.add(node, 'python:import:' + full, 'imports %s, which this check could not load to inspect' % full, IMPORT_ADVICE)
            return False
        self.used_modules.add(full)
        return True

    def check_binding_name(self, node, name):
        if name in DANGEROUS_BUILTINS or name in ONE_ARGUMENT_ONLY:
            self.add(node, 'python:builtin:' + name, 'rebinds the built-in name %s, which hides what later uses of it refer to' % name, 'Choose another name, or approve the call.')
        elif is_dunder(name) and name not in SAFE_DUNDER_NAMES:
            self.add(node, 'python:dunder', 'binds the special name %s, which changes how the interpreter runs this code' % name, HIDDEN_ADVICE)

    def member_problem(self, module, attr):
        """(rule, what, advice) if 'module.attr' needs approval; also returns the member's value."""
        qual = module + '.' + attr
        problem = attribute_problem(attr)
        if problem:
            return problem, MISSING
        if attr.startswith('__') and attr not in ('__name__', '__doc__'):
            # json.__init__('x') would reset the module; a module's dunders are its machinery.
            return ('python:dunder', 'reads the hidden module attribute %s' % qual, HIDDEN_ADVICE), MISSING
        why = DENIED_FUNCTIONS.get(module, {}).get(attr) or DENIED_EVERYWHERE.get(attr)
        if why:
            return ('python:function:' + qual, 'uses %s, which %s' % (qual, why), APPROVE), MISSING
        value = getattr(self.modules[module], attr, MISSING)
        if value is MISSING:
            if qual in ALLOWED_MODULES:
                return None, self.load(qual)
            return ('python:module-attribute', 'uses %s, which is not a known part of %s (it could be a submodule loaded at run time)' % (qual, module), APPROVE), MISSING
        if isinstance(value, types.ModuleType) and value.__name__ not in ALLOWED_MODULES:
            return ('python:import:' + value.__name__, 'reaches the module %s through %s; %s %s' % (value.__name__, qual, value.__name__, module_why(value.__name__)), IMPORT_ADVICE), value
        return None, value

    def collect_imports(self, tree):
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                self.check_class_scope_imports(node)
            if isinstance(node, ast.Import):
                for alias in node.names:
                    full = nfkc(alias.name)
                    if not self.check_module_name(node, full):
                        continue
                    if alias.asname:
                        bound = nfkc(alias.asname)
                        self.check_binding_name(node, bound)
                        self.module_alias[bound] = full
                    else:
                        top = full.split('.')[0]
                        self.load(top)
                        self.module_alias[top] = top
            elif isinstance(node, ast.ImportFrom):
                self.collect_import_from(node)

    def check_class_scope_imports(self, cls):
        # 'class A: import datetime' makes the module an attribute, A.datetime.sys, which no alias check would see.
        stack = list(cls.body)
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self.add(node, 'python:module-as-value', 'imports inside the class %s, which makes modules reachable as class attributes' % cls.name, 'Move the import to the top of the code, or approve the call.')
            elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.expr)):
                stack.extend(ast.iter_child_nodes(node))

    def collect_import_from(self, node):
        if node.level:
            shown = '.' * node.level + (node.module or '')
            self.add(node, 'python:import:' + shown, 'imports %s relative to a package, which loads code from files next to it' % shown, IMPORT_ADVICE)
            return
        module = nfkc(node.module or '')
        if module == '__future__':
            for alias in node.names:
                if nfkc(alias.name) not in FUTURE_FEATURES:
                    self.add(node, 'python:import:__future__', 'turns on the compiler feature %s' % alias.name, APPROVE)
            return
        if not self.check_module_name(node, module):
            return
        for alias in node.names:
            name = nfkc(alias.name)
            if name == '*':
                self.star_import = True
                mod = self.modules[module]
                exported = getattr(mod, '__all__', None)
                if exported is None:
                    exported = [n for n in dir(mod) if not n.startswith('_')]
                for member in exported:
                    problem, value = self.member_problem(module, member)
                    if problem is None and isinstance(value, types.ModuleType):
                        problem = ('python:star-import', 'brings the module %s in with a star import' % value.__name__, APPROVE)
                    if problem is None and (member in DANGEROUS_BUILTINS or member in ONE_ARGUMENT_ONLY or module + '.' + member in ONE_ARGUMENT_ONLY):
                        problem = ('python:star-import', 'replaces the built-in %s with a star import' % member, APPROVE)
                    if problem:
                        self.add(node, 'python:star-import', 'imports everything from %s, including %s.%s (%s)' % (module, module, member, problem[1]), 'Import the names you need explicitly, or approve the call.')
                        break
                continue
            bound = nfkc(alias.asname or alias.name)
            problem, value = self.member_problem(module, name)
            if problem:
                self.add(node, *problem)
                continue
            self.check_binding_name(node, bound)
            if isinstance(value, types.ModuleType):
                self.module_alias[bound] = value.__name__
                self.used_modules.add(value.__name__)
            elif module + '.' + name in ONE_ARGUMENT_ONLY:
                self.one_arg[bound] = module + '.' + name

    # -- names bound only to constant strings (for str.format receivers) ------------------------------------
    def collect_constant_strings(self, tree):
        good = {}
        bad = set()
        good_nodes = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        good_nodes.add(id(target))
                        good.setdefault(nfkc(target.id), []).append(node.value.value)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                good_nodes.add(id(node.target))
                good.setdefault(nfkc(node.target.id), []).append(node.value.value)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) and id(node) not in good_nodes:
                bad.add(nfkc(node.id))
            elif isinstance(node, ast.arg):
                bad.add(nfkc(node.arg))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bad.add(nfkc(node.name))
            elif isinstance(node, ast.alias):
                bad.add(nfkc(node.asname or node.name.split('.')[0]))
            elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
                bad.add(nfkc(node.name))
            elif isinstance(node, ast.MatchMapping) and node.rest:
                bad.add(nfkc(node.rest))
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                bad.update(nfkc(n) for n in node.names)
        self.bound = bad | set(good)
        if not self.star_import:
            self.const_strings = {k: v for k, v in good.items() if k not in bad}

    # -- look-alike identifiers ------------------------------------------------------------------------------
    def scan_lookalikes(self):
        for lineno, line in enumerate(self.text.split('\n'), 1):
            if line.isascii():
                continue
            run = []
            for ch in line + '\n':
                if ch == '_' or ch.isalnum() or ('a' + ch).isidentifier():
                    run.append(ch)
                    continue
                if run:
                    word = ''.join(run)
                    run = []
                    if not word.isascii():
                        normal = nfkc(word)
                        if normal != word and self.sensitive(normal):
                            node = ast.AST()
                            node.lineno = lineno
                            self.add(node, 'python:unicode-lookalike', 'writes %s with look-alike Unicode letters; Python reads it as %s' % (word, normal), 'Write the name in plain ASCII letters so it can be checked, or approve the call if you trust the code.')

    @staticmethod
    def sensitive(name):
        return (name in DANGEROUS_BUILTINS or name in ONE_ARGUMENT_ONLY or name in MODULE_WHY or name.startswith('_')
                or name.startswith(INTROSPECTION_PREFIXES)
                or name in ('import', 'from', 'system', 'popen', 'environ', 'modules', 'builtins', 'subclasses'))

    # -- the walk --------------------------------------------------------------------------------------------
    def run(self, tree):
        self.scan_lookalikes()
        self.collect_imports(tree)
        self.collect_constant_strings(tree)
        stack = [(tree, 0)]
        count = 0
        while stack:
            node, annotation = stack.pop()
            count += 1
            if count > MAX_NODES:
                raise Verdict('python:too-complex', 'The code has more than %d syntax nodes, too many to check. Split it into smaller pieces, or approve the call.' % MAX_NODES)
            kind = type(node).__name__
            if kind not in ALLOWED_NODES:
                what = UNSUPPORTED_WHY.get(kind, 'uses %s, which is outside what this check knows to be harmless' % kind)
                self.add(node, 'python:unsupported:' + kind, what, 'Rewrite it without that construct to run without approval, or approve the call if you trust it.')
                continue
            visit = getattr(self, 'visit_' + kind, None)
            if visit:
                visit(node)
            if annotation and kind == 'Constant' and isinstance(node.value, str):
                self.annotation_string(node, annotation, stack)
            children = []
            for field, value in ast.iter_fields(node):
                level = annotation or (1 if field in ('annotation', 'returns') else 0)
                if isinstance(value, ast.AST):
                    children.append((value, level))
                elif isinstance(value, list):
                    children.extend((item, level) for item in value if isinstance(item, ast.AST))
            stack.extend(reversed(children))

    def annotation_string(self, node, depth, stack):
        # Annotations written as text are evaluated as code by typing helpers; check them as code.
        if depth >= MAX_ANNOTATION_DEPTH:
            self.add(node, 'python:annotation', 'nests annotations written as text too deeply to check', APPROVE)
            return
        try:
            parsed = ast.parse(node.value.strip(), mode='eval')
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            self.add(node, 'python:annotation', 'has an annotation written as text that is not a Python expression', 'Write the annotation as a plain expression, or approve the call.')
            return
        for inner in ast.walk(parsed):
            if hasattr(inner, 'lineno'):
                inner.lineno, inner.col_offset = node.lineno, node.col_offset
                inner.end_lineno, inner.end_col_offset = node.end_lineno, node.end_col_offset
        stack.append((parsed.body, depth + 1))

    def module_of(self, expr):
        """The allowed module an expression names (a module alias, or 'pkg.sub' of one), else None."""
        chain = []
        while isinstance(expr, ast.Attribute) and id(expr) not in self.module_memo:
            chain.append(expr)
            expr = expr.value
        if isinstance(expr, ast.Attribute):
            module = self.module_memo[id(expr)]
        elif isinstance(expr, ast.Name):
            module = self.module_alias.get(nfkc(expr.id))
        else:
            module = None
        for attr_node in reversed(chain):
            if module is not None:
                value = getattr(self.modules.get(module), nfkc(attr_node.attr), MISSING)
                if isinstance(value, types.ModuleType) and value.__name__ in ALLOWED_MODULES:
                    self.modules.setdefault(value.__name__, value)
                    module = value.__name__
                else:
                    module = None
            self.module_memo[id(attr_node)] = module
        return module

    def visit_Constant(self, node):
        # Defence in depth: '__globals__' or {'__getattr__': f} as data is how name-based lookups (update_wrapper,
        # a class built from a dictionary) are steered; pure code does not spell interpreter internals as text.
        value = node.value
        if not isinstance(value, str) or len(value) > 40:
            return
        name = nfkc(value)
        if is_dunder(name) and name.isidentifier() and name not in SAFE_DUNDER_ATTRIBUTES and name not in SAFE_DUNDER_NAMES and name != '__main__':
            self.add(node, 'python:dunder', 'spells the special name %s as text, which only code that looks attributes up by name needs' % name, HIDDEN_ADVICE)
        elif name in INTROSPECTION_NAMES:
            self.add(node, 'python:introspection', 'spells the frame attribute %s as text, which only code that looks attributes up by name needs' % name, HIDDEN_ADVICE)

    def visit_Call(self, node):
        if len(node.args) == 1 and not node.keywords and not isinstance(node.args[0], ast.Starred):
            self.one_arg_ok.add(id(node.func))
            if id(node) in self.decorators:
                self.decorator_ok.add(id(node.func))

    def one_form_only(self, node, key, shown):
        ok = self.one_arg_ok if key == 'type' else self.decorator_ok
        if id(node) in ok and isinstance(node.ctx, ast.Load):
            return
        form, why, advice = ONE_ARGUMENT_ONLY[key]
        rule = 'python:builtin:type' if key == 'type' else 'python:function:' + key
        self.add(node, rule, 'uses %s other than %s; %s' % (shown, form, why), advice)

    def visit_Name(self, node):
        name = nfkc(node.id)
        if name in self.module_alias:
            if not (isinstance(node.ctx, ast.Load) and id(node) in self.module_base_ok):
                self.add(node, 'python:module-as-value', 'uses the module %s as a value (stored, passed or rebound), which hides what is reached through it' % name, 'Use the module\'s functions directly (for example math.sqrt(x)), or approve the call.')
            return
        if name in DANGEROUS_BUILTINS:
            what, advice = DANGEROUS_BUILTINS[name]
            self.add(node, 'python:builtin:' + name, 'uses %s(), which %s' % (name, what), advice)
            return
        if name in self.one_arg:
            self.one_form_only(node, self.one_arg[name], name)
            return
        if is_dunder(name) and name not in SAFE_DUNDER_NAMES:
            self.add(node, 'python:dunder', 'uses the special name %s, which reaches interpreter internals' % name, HIDDEN_ADVICE)
        elif name in MODULE_WHY and name not in self.bound and isinstance(node.ctx, ast.Load):
            # os.system('x') without an import only fails with NameError here, but it says what the code is for.
            self.add(node, 'python:import:' + name, 'uses %s (without importing it), a module that %s' % (name, MODULE_WHY[name]), IMPORT_ADVICE)

    def visit_Attribute(self, node):
        attr = nfkc(node.attr)
        self.module_base_ok.add(id(node.value))
        problem = attribute_problem(attr)
        if problem:
            self.add(node, *problem)
            return
        if not isinstance(node.ctx, ast.Load):
            path = [attr]
            root = node.value
            while isinstance(root, ast.Attribute):
                path.append(nfkc(root.attr))
                root = root.value
            if isinstance(root, ast.Name) and nfkc(root.id) in self.module_alias:
                # json.JSONEncoder.default = f patches the library for every caller, its own internals included.
                path.append(nfkc(root.id))
                self.add(node, 'python:module-write', 'changes %s, which alters a library module for everything that uses it' % '.'.join(reversed(path)), 'Keep results in your own variables or subclass instead, or approve the call.')
                return
        module = self.module_of(node.value)
        if module is None:
            if attr in ('format', 'format_map'):
                self.check_format_receiver(node)
            return
        qual = module + '.' + attr
        self.used_modules.add(module)
        problem, value = self.member_problem(module, attr)
        if problem:
            self.add(node, *problem)
            return
        if isinstance(value, types.ModuleType) and id(node) not in self.module_base_ok:
            self.add(node, 'python:module-as-value', 'uses the module %s as a value, which hides what is reached through it' % qual, 'Use the module\'s functions directly, or approve the call.')
        elif qual in ONE_ARGUMENT_ONLY:
            self.one_form_only(node, qual, qual)

    def check_format_receiver(self, node):
        # str.format looks up attributes named inside the template: "{0.__class__}".format(x) is getattr().
        receiver = node.value
        if isinstance(receiver, ast.Constant) and isinstance(receiver.value, str):
            templates = [receiver.value]
        elif isinstance(receiver, ast.Name) and nfkc(receiver.id) in self.const_strings:
            templates = self.const_strings[nfkc(receiver.id)]
        else:
            self.add(node, 'python:dynamic-format', 'calls .%s on a template that is not a literal string; format templates can read attributes by name, like getattr()' % node.attr, 'Use an f-string or a literal template ("{}".format(x)), or approve the call.')
            return
        for template in templates:
            self.check_format_template(node, template, 0)

    def check_format_template(self, node, template, depth):
        try:
            parts = list(string.Formatter().parse(template))
        except ValueError:
            return  # the call fails before looking anything up
        for _literal, field, spec, _conversion in parts:
            if field:
                try:
                    _first, rest = _string.formatter_field_name_split(field)
                    lookups = list(rest)
                except ValueError:
                    lookups = []
                for is_attribute, key in lookups:
                    if is_attribute:
                        problem = attribute_problem(nfkc(key))
                        if problem:
                            self.add(node, problem[0], 'has a format template that ' + problem[1], problem[2])
                            return
            if spec and depth < 2:
                self.check_format_template(node, spec, depth + 1)

    def visit_FunctionDef(self, node):
        self.decorators.update(id(d) for d in node.decorator_list)
        name = nfkc(node.name)
        if is_dunder(name) and name not in SAFE_DUNDER_METHODS:
            self.add(node, 'python:dunder-method', 'defines %s, which the interpreter calls with its own internal objects' % name, HIDDEN_ADVICE)
        elif name in DANGEROUS_BUILTINS or name in ONE_ARGUMENT_ONLY:
            self.check_binding_name(node, name)

    def visit_ClassDef(self, node):
        self.decorators.update(id(d) for d in node.decorator_list)
        self.check_binding_name(node, nfkc(node.name))

    def visit_arg(self, node):
        name = nfkc(node.arg)
        if is_dunder(name) and name not in SAFE_DUNDER_NAMES:
            self.check_binding_name(node, name)

    def visit_ExceptHandler(self, node):
        if node.name:
            self.check_binding_name(node, nfkc(node.name))

    def visit_Global(self, node):
        for name in node.names:
            self.check_binding_name(node, nfkc(name))

    visit_Nonlocal = visit_Global

    def visit_MatchAs(self, node):
        if node.name:
            self.check_binding_name(node, nfkc(node.name))

    visit_MatchStar = visit_MatchAs

    def visit_MatchMapping(self, node):
        if node.rest:
            self.check_binding_name(node, nfkc(node.rest))

    def visit_MatchClass(self, node):
        # case C(attr=x) reads subject.attr by name, exactly like an attribute access.
        for attr in node.kwd_attrs:
            problem = attribute_problem(nfkc(attr))
            if problem:
                self.add(node, problem[0], 'matches on a pattern that ' + problem[1], problem[2])


def ask(rule, reason):
    return {'decision': 'ask', 'rule': rule, 'reason': reason}


def analyse(data):
    if len(data) > MAX_CHARS * 4:
        return ask('python:too-large', 'The code is longer than %d characters, too long to check. Split the work into smaller pieces, or approve the call.' % MAX_CHARS)
    try:
        encoding = tokenize.detect_encoding(io.BytesIO(data).readline)[0]
    except SyntaxError as error:
        return ask('python:syntax-error', 'The code has an invalid encoding declaration (%s). Fix it (the code would not run as written), or approve the call.' % error)
    try:
        encoding = codecs.lookup(encoding).name
    except LookupError:
        pass
    if encoding not in ('utf-8', 'utf-8-sig'):
        # The runner decodes by the same declaration, but an unusual codec (utf-7) makes text read differently
        # from how it looks.
        return ask('python:encoding', 'The code declares the source encoding %s; only UTF-8 is checked. Remove the coding line and send UTF-8, or approve the call.' % encoding)
    try:
        text = data.decode('utf-8-sig')
    except UnicodeDecodeError:
        return ask('python:encoding', 'The code is not valid UTF-8. Send it as UTF-8 text, or approve the call.')
    if len(text) > MAX_CHARS:
        return ask('python:too-large', 'The code is longer than %d characters, too long to check. Split the work into smaller pieces, or approve the call.' % MAX_CHARS)
    try:
        # Parse the bytes, not the text: the runner compiles these same bytes, so both read them the same way.
        tree = ast.parse(data, '<run_python>')
    except SyntaxError as error:
        where = ' on line %d' % error.lineno if error.lineno else ''
        return ask('python:syntax-error', 'The code does not parse as Python: %s%s. Fix the syntax (it would not run as written), or approve the call to see the interpreter\'s own error.' % (error.msg, where))
    except (RecursionError, MemoryError):
        return ask('python:too-complex', 'The code nests expressions too deeply to check. Flatten the nesting, or approve the call.')
    except ValueError as error:
        return ask('python:syntax-error', 'The code cannot be parsed: %s. Fix it, or approve the call.' % error)
    checker = Checker(text)
    try:
        checker.run(tree)
    except TooManyFindings:
        pass
    except Verdict as verdict:
        return ask(verdict.rule, verdict.reason)
    except (RecursionError, MemoryError):
        return ask('python:too-complex', 'The code is too deeply nested to check. Flatten the nesting, or approve the call.')
    if checker.findings:
        # Reading order; of nested findings the innermost first (the __class__ of ().__class__.__bases__).
        checker.findings.sort(key=lambda finding: finding[0])
        _position, rule, reason = checker.findings[0]
        more = len(checker.findings) - 1
        if more:
            reason += ' (%d more thing%s in this code also need%s approval.)' % (more, '' if more == 1 else 's', 's' if more == 1 else '')
        return ask(rule, reason)
    used = sorted(m for m in checker.used_modules)
    uses = 'modules: ' + ', '.join(used) if used else 'no modules'
    return {
        'decision': 'allow',
        'rule': 'python:pure',
        'reason': 'The code only computes (%s): no files, programs, network or interpreter internals, so it runs without approval.' % uses,
    }


def allowed_modules(argv):
    """The pure-module list from the command line, or None when it is missing or malformed."""
    if len(argv) != 2:
        return None
    try:
        names = json.loads(argv[1])
    except ValueError:
        return None
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        return None
    return frozenset(names)


def main():
    global ALLOWED_MODULES
    modules = allowed_modules(sys.argv)
    if modules is None:
        sys.stderr.write(__doc__)
        sys.exit(2)
    ALLOWED_MODULES = modules
    data = sys.stdin.buffer.read()
    try:
        verdict = analyse(data)
    except Exception as error:  # fail closed: an analyzer bug must never allow
        verdict = ask('python:analyzer-failed', 'The Python safety check failed (%s: %s), so a person must decide. Approve the call if you trust the code.' % (type(error).__name__, error))
    sys.stdout.write(json.dumps(verdict))
    sys.stdout.flush()


if __name__ == '__main__':
    main()
