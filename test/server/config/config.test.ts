import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, resolveDataDir, settingParsers, type ConfigFlags, type PincerConfig } from '../../../server/config/config.js';
import { ownFolders } from '../../../server/config/own-folders.js';
import { PACKAGE_ROOT } from '../../../server/version.js';

/** A fresh home, working directory and data directory per test; nothing of the real machine is read. */
let root: string;
let home: string;
let cwd: string;
let dataDir: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pincer-config-'));
  home = join(root, 'home');
  cwd = join(root, 'cwd');
  dataDir = join(root, 'data');
  for (const dir of [home, cwd, dataDir]) mkdirSync(dir);
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function writeConfig(config: unknown, dir = dataDir): void {
  writeFileSync(join(dir, 'config.json'), typeof config === 'string' ? config : JSON.stringify(config));
}

function writeDotEnv(text: string, dir = dataDir): void {
  writeFileSync(join(dir, '.env'), text);
}

/** loadConfig against the temp folders; the data directory comes from --data-dir unless a test says otherwise. */
function load(options: { flags?: ConfigFlags; env?: NodeJS.ProcessEnv } = {}): PincerConfig {
  return loadConfig({ flags: { dataDir, ...options.flags }, env: options.env ?? {}, cwd, home });
}

/** The ConfigError a bad configuration stops with; it must be exactly one line. */
function configError(options: { flags?: ConfigFlags; env?: NodeJS.ProcessEnv } = {}): string {
  let error: unknown;
  try {
    load(options);
  } catch (caught) {
    error = caught;
  }
  expect(error, 'the configuration was accepted').toBeInstanceOf(ConfigError);
  const message = (error as ConfigError).message;
  expect(message).not.toMatch(/[\r\n]/);
  return message;
}

describe('defaults', () => {
  it('uses 127.0.0.1:7800, the working directory as the only root, client auth on and Ollama on loopback', () => {
    const config = load();
    expect(config.host).toBe('127.0.0.1');
    expect(config.port).toBe(7800);
    expect(config.roots).toEqual([cwd]);
    expect(config.dataDir).toBe(dataDir);
    expect(config.clientAuth).toBe(true);
    expect(config.token).toBeUndefined();
    expect(config.allowedHosts).toEqual([]);
    expect(config.bodyLimitBytes).toBe(1024 * 1024);
    expect(config.llm).toEqual({ baseUrl: 'http://127.0.0.1:11434', model: undefined, api: 'ollama' });
  });

  it('does not need the data directory to exist', () => {
    const config = loadConfig({ flags: { dataDir: join(root, 'not-yet') }, env: {}, cwd, home });
    expect(config.dataDir).toBe(join(root, 'not-yet'));
  });
});

describe('precedence: flags > environment > config.json > defaults', () => {
  it('takes host and port from config.json when nothing else sets them', () => {
    writeConfig({ host: 'localhost', port: 7001 });
    const config = load();
    expect([config.host, config.port]).toEqual(['localhost', 7001]);
  });

  it('lets the environment beat config.json', () => {
    writeConfig({ host: 'localhost', port: 7001 });
    const config = load({ env: { PINCER_HOST: '127.0.0.2', PINCER_PORT: '7002' } });
    expect([config.host, config.port]).toEqual(['127.0.0.2', 7002]);
  });

  it('lets flags beat the environment and config.json', () => {
    writeConfig({ host: 'localhost', port: 7001 });
    const config = load({ flags: { host: '127.0.0.3', port: '7003' }, env: { PINCER_HOST: '127.0.0.2', PINCER_PORT: '7002' } });
    expect([config.host, config.port]).toEqual(['127.0.0.3', 7003]);
  });

  it('accepts port 0 from a flag (any free port)', () => {
    expect(load({ flags: { port: 0 } }).port).toBe(0);
  });

  it('treats an empty environment variable as not set', () => {
    writeConfig({ port: 7001 });
    expect(load({ env: { PINCER_PORT: '' } }).port).toBe(7001);
  });

  it('takes roots from config.json, and PINCER_ROOTS over config.json', () => {
    const a = join(root, 'a');
    const b = join(root, 'b');
    writeConfig({ roots: [a] });
    expect(load().roots).toEqual([a]);
    expect(load({ env: { PINCER_ROOTS: b } }).roots).toEqual([b]);
  });

  it('strips the brackets of an IPv6 host', () => {
    expect(load({ flags: { host: '[::1]' } }).host).toBe('::1');
  });
});

describe('the .env file in the data directory', () => {
  it('is read', () => {
    writeDotEnv('PINCER_PORT=7101\nPINCER_LLM_MODEL=llama3\n');
    const config = load();
    expect(config.port).toBe(7101);
    expect(config.llm.model).toBe('llama3');
  });

  it('beats config.json', () => {
    writeConfig({ port: 7001 });
    writeDotEnv('PINCER_PORT=7101\n');
    expect(load().port).toBe(7101);
  });

  it('loses to the real environment', () => {
    writeDotEnv('PINCER_PORT=7101\n');
    expect(load({ env: { PINCER_PORT: '7102' } }).port).toBe(7102);
  });

  it('loses to flags', () => {
    writeDotEnv('PINCER_PORT=7101\n');
    expect(load({ flags: { port: '7103' } }).port).toBe(7103);
  });

  it('is named as the source of a bad value it holds, not the shell environment', () => {
    writeDotEnv('PINCER_PORT=abc\n');
    const message = configError();
    expect(message).toContain('port');
    expect(message).toContain(`PINCER_PORT in ${join(dataDir, '.env')}`);
  });

  it('may hold PINCER_TOKEN', () => {
    writeDotEnv('PINCER_TOKEN=0123456789abcdef0123\n');
    expect(load().token).toBe('0123456789abcdef0123');
  });
});

describe('the data directory', () => {
  it('is ~/.pincer when neither PINCER_HOME nor --data-dir is given', () => {
    expect(loadConfig({ env: {}, cwd, home }).dataDir).toBe(join(home, '.pincer'));
  });

  it('is PINCER_HOME when set, and its config.json is the one read', () => {
    writeConfig({ port: 7201 });
    const config = loadConfig({ env: { PINCER_HOME: dataDir }, cwd, home });
    expect(config.dataDir).toBe(dataDir);
    expect(config.port).toBe(7201);
  });

  it('is --data-dir over PINCER_HOME', () => {
    const other = join(root, 'other');
    mkdirSync(other);
    writeConfig({ port: 7201 });
    writeConfig({ port: 7202 }, other);
    const config = loadConfig({ flags: { dataDir: other }, env: { PINCER_HOME: dataDir }, cwd, home });
    expect(config.dataDir).toBe(other);
    expect(config.port).toBe(7202);
  });

  it('ignores an empty PINCER_HOME', () => {
    expect(loadConfig({ env: { PINCER_HOME: '  ' }, cwd, home }).dataDir).toBe(join(home, '.pincer'));
  });

  it('resolves a relative --data-dir or PINCER_HOME against the given working directory', () => {
    expect(loadConfig({ flags: { dataDir: 'rel-data' }, env: {}, cwd, home }).dataDir).toBe(join(cwd, 'rel-data'));
    expect(loadConfig({ env: { PINCER_HOME: 'rel-home' }, cwd, home }).dataDir).toBe(join(cwd, 'rel-home'));
    expect(resolveDataDir({ dataDir: 'x' }, {}, home, cwd)).toBe(join(cwd, 'x'));
  });
});

describe('roots', () => {
  it('splits PINCER_ROOTS on the path delimiter and resolves relative folders against the working directory', () => {
    const absolute = join(root, 'abs');
    const config = load({ env: { PINCER_ROOTS: ['projects', absolute, '../up'].join(delimiter) } });
    expect(config.roots).toEqual([join(cwd, 'projects'), absolute, join(root, 'up')]);
  });

  it('skips empty entries in PINCER_ROOTS (a trailing or doubled delimiter)', () => {
    const config = load({ env: { PINCER_ROOTS: `a${delimiter}${delimiter}b${delimiter}` } });
    expect(config.roots).toEqual([join(cwd, 'a'), join(cwd, 'b')]);
  });

  it('resolves relative roots in config.json against the working directory', () => {
    writeConfig({ roots: ['docs'] });
    expect(load().roots).toEqual([join(cwd, 'docs')]);
  });

  it('"roots": [] in config.json shares no folder, whatever the working directory', () => {
    writeConfig({ roots: [] });
    const config = load();
    expect(config.roots).toEqual([]);
    expect(config.rootsNotice).toBeUndefined();
    expect(config.sources.roots).toEqual({ kind: 'file' });
  });
});

describe('roots: Pincer\'s own files are not a workspace', () => {
  const at = (where: string, env: NodeJS.ProcessEnv = {}) => loadConfig({ flags: { dataDir }, env, cwd: where, home });

  it('unconfigured, "/" is not shared (Claude Desktop starts pincer mcp there), and the notice says why', () => {
    const config = at('/');
    expect(config.roots).toEqual([]);
    expect(config.rootsNotice).toMatch(/^the working folder \/ is the top of the file system/);
  });

  it('unconfigured, the home folder itself is not shared; a folder inside it is', () => {
    expect(at(home).roots).toEqual([]);
    expect(at(home).rootsNotice).toContain('is the home folder itself');
    const projects = join(home, 'projects');
    mkdirSync(projects);
    expect(at(projects).roots).toEqual([projects]);
    expect(at(projects).rootsNotice).toBeUndefined();
  });

  it('unconfigured, the home folder is recognised through a symlink to it', () => {
    const link = join(root, 'home-link');
    symlinkSync(home, link);
    expect(at(link).roots).toEqual([]);
  });

  it("unconfigured, Pincer's package folder (started from its checkout with npm start) is not shared, nor a folder inside it", () => {
    for (const where of [PACKAGE_ROOT, join(PACKAGE_ROOT, 'server'), join(PACKAGE_ROOT, 'plugins'), join(PACKAGE_ROOT, 'plugins', 'investment')]) {
      const config = at(where);
      expect(config.roots, where).toEqual([]);
      expect(config.rootsNotice, where).toMatch(/Pincer's own package folder|Pincer's bundled plugins folder/);
    }
  });

  it('unconfigured, the data folder and a folder inside it are not shared', () => {
    mkdirSync(join(dataDir, 'plugins'));
    for (const where of [dataDir, join(dataDir, 'plugins')]) {
      expect(at(where).roots, where).toEqual([]);
      expect(at(where).rootsNotice, where).toContain("Pincer's data folder");
    }
  });

  it("unconfigured, a folder that holds Pincer's package is a workspace like any other (the package inside stays unwritable)", () => {
    expect(at(dirname(PACKAGE_ROOT)).roots).toEqual([dirname(PACKAGE_ROOT)]);
  });

  it('a root that is the package, the bundled plugins, the data folder, or inside one, is refused naming the key, the source and the folder', () => {
    const bad = [PACKAGE_ROOT, join(PACKAGE_ROOT, 'server'), join(PACKAGE_ROOT, 'plugins'), join(PACKAGE_ROOT, 'plugins', 'investment'), dataDir];
    for (const folder of bad) {
      const fromEnv = configError({ env: { PINCER_ROOTS: [cwd, folder].join(delimiter) } });
      expect(fromEnv).toMatch(/^Invalid configuration: roots \(from PINCER_ROOTS\) may not hold /);
      expect(fromEnv).toContain(`"${folder}"`);
      expect(fromEnv).toMatch(/Pincer's (own package folder|bundled plugins folder|data folder)/);
      writeConfig({ roots: [folder] });
      expect(configError()).toMatch(/^Invalid configuration: roots \(from config\.json roots\) may not hold /);
      rmSync(join(dataDir, 'config.json'));
    }
  });

  it('a root that reaches the package through a symlink is refused too', () => {
    const link = join(root, 'pincer-link');
    symlinkSync(PACKAGE_ROOT, link);
    expect(configError({ env: { PINCER_ROOTS: join(link, 'plugins') } })).toContain("Pincer's bundled plugins folder");
  });

  it('a root that holds the package or the data folder is accepted (the home folder holding ~/.pincer)', () => {
    expect(load({ env: { PINCER_ROOTS: root } }).roots).toEqual([root]);
    expect(load({ env: { PINCER_ROOTS: dirname(PACKAGE_ROOT) } }).roots).toEqual([dirname(PACKAGE_ROOT)]);
  });
});

describe('the LLM base URL', () => {
  it.each([
    ['0.0.0.0:11434', 'http://127.0.0.1:11434'],
    ['0.0.0.0', 'http://127.0.0.1:11434'],
    [':11434', 'http://127.0.0.1:11434'],
    [':8080', 'http://127.0.0.1:8080'],
    ['myhost', 'http://myhost:11434'],
    ['myhost:9000', 'http://myhost:9000'],
    ['myhost:80', 'http://myhost'],
    ['http://host:1234', 'http://host:1234'],
    ['http://host:1234/', 'http://host:1234'],
    ['https://ollama.example.com', 'https://ollama.example.com'],
    ['http://ollama.example.com', 'http://ollama.example.com'],
    ['[::1]:11434', 'http://[::1]:11434'],
    ['::1', 'http://[::1]:11434'],
    ['  "myhost:9000"  ', 'http://myhost:9000'],
  ])('reads OLLAMA_HOST=%j as %s', (value, expected) => {
    expect(load({ env: { OLLAMA_HOST: value } }).llm.baseUrl).toBe(expected);
  });

  it('prefers PINCER_LLM_BASE_URL over OLLAMA_HOST', () => {
    const config = load({ env: { OLLAMA_HOST: 'myhost', PINCER_LLM_BASE_URL: 'http://127.0.0.1:9999/' } });
    expect(config.llm.baseUrl).toBe('http://127.0.0.1:9999');
  });

  it('prefers llm.base_url in config.json over the ambient OLLAMA_HOST', () => {
    writeConfig({ llm: { base_url: 'http://llm.lan:8000' } });
    expect(load({ env: { OLLAMA_HOST: 'myhost' } }).llm.baseUrl).toBe('http://llm.lan:8000');
  });

  it('takes api and model from the environment over config.json', () => {
    writeConfig({ llm: { api: 'ollama', model: 'a' } });
    expect(load({ env: { PINCER_LLM_API: 'openai', PINCER_LLM_MODEL: 'b' } }).llm).toMatchObject({ api: 'openai', model: 'b' });
  });

  it('refuses an OLLAMA_HOST that is no URL, naming OLLAMA_HOST', () => {
    const message = configError({ env: { OLLAMA_HOST: 'bad host' } });
    expect(message).toContain('llm.base_url');
    expect(message).toContain('OLLAMA_HOST');
  });
});

describe('a bad value stops start-up with one line naming the key and where it came from', () => {
  it('port "abc" from the environment', () => {
    const message = configError({ env: { PINCER_PORT: 'abc' } });
    expect(message).toMatch(/\bport\b/);
    expect(message).toContain('PINCER_PORT');
    expect(message).toContain('"abc"');
  });

  it('port "abc" from a flag', () => {
    expect(configError({ flags: { port: 'abc' } })).toContain('--port');
  });

  it('port 70000 from config.json', () => {
    writeConfig({ port: 70000 });
    const message = configError();
    expect(message).toContain('config.json port');
    expect(message).toContain('0 to 65535');
    expect(message).toContain('70000');
  });

  it('port -1 and port 1.5', () => {
    expect(configError({ env: { PINCER_PORT: '-1' } })).toContain('PINCER_PORT');
    writeConfig({ port: 1.5 });
    expect(configError()).toContain('config.json port');
  });

  it('host "bad host!"', () => {
    const message = configError({ env: { PINCER_HOST: 'bad host!' } });
    expect(message).toMatch(/\bhost\b/);
    expect(message).toContain('PINCER_HOST');
    expect(message).toContain('"bad host!"');
  });

  it('host of the wrong type in config.json', () => {
    writeConfig({ host: 127001 });
    expect(configError()).toContain('config.json host');
  });

  it('config.json that is not JSON, even when its text spans lines', () => {
    writeConfig('nope\nnot json\n');
    const message = configError();
    expect(message).toContain(join(dataDir, 'config.json'));
    expect(message).toContain('not valid JSON');
  });

  it('config.json with a trailing comma', () => {
    writeConfig('{\n  "port": 7001,\n}\n');
    expect(configError()).toContain('not valid JSON');
  });

  it('config.json holding an array', () => {
    writeConfig([{ port: 1 }]);
    expect(configError()).toContain('must hold a JSON object');
  });

  it('config.json holding null', () => {
    writeConfig('null');
    expect(configError()).toContain('must hold a JSON object');
  });

  it('an unknown key "prot", listing the known keys', () => {
    writeConfig({ prot: 7001 });
    const message = configError();
    expect(message).toContain('"prot"');
    expect(message).toContain('port');
    expect(message).toContain('roots');
  });

  it('a syntax error at its line and column, whatever V8 says of it', () => {
    writeConfig('{\n  "port": 7001,\n  "host" "127.0.0.1"\n}\n');
    expect(configError()).toContain('not valid JSON at line 3, column 10');
    writeConfig('{\n  "port": 7001,\n}\n');
    expect(configError()).toContain('not valid JSON at line 3, column 1');
    writeConfig('nope\nnot json\n');
    expect(configError()).toContain('not valid JSON at line 1, column 1');
    writeConfig('{\n  "roots": ["/a",\n');
    expect(configError()).toContain('not valid JSON at line 3, column 1');
  });

  it('an unknown key at its line and column, with the closest known key', () => {
    writeConfig('{\n  "port": 7001,\n    "aproval_timeout_s": 30\n}\n');
    expect(configError()).toContain('unknown key "aproval_timeout_s" in config.json at line 3, column 5; did you mean "approval_timeout_s"?');
    writeConfig('{"llm": {\n  "api": "ollama",\n  "modle": "x"}}');
    expect(configError()).toContain('unknown key "llm.modle" in');
    expect(configError()).toContain('at line 3, column 3; did you mean "llm.model"?');
  });

  it('an unknown key close to none gives no guess', () => {
    writeConfig({ zzzzzzzz: 1 });
    const message = configError();
    expect(message).toContain('unknown key "zzzzzzzz"');
    expect(message).not.toContain('did you mean');
  });

  it('an unknown llm key', () => {
    writeConfig({ llm: { modle: 'x' } });
    const message = configError();
    expect(message).toContain('llm.modle');
    expect(message).toContain('model');
  });

  it('llm that is not an object', () => {
    writeConfig({ llm: 'ollama' });
    expect(configError()).toContain('llm');
  });

  it('llm.api "claude"', () => {
    writeConfig({ llm: { api: 'claude' } });
    const message = configError();
    expect(message).toContain('llm.api');
    expect(message).toContain('config.json llm.api');
    expect(message).toContain('ollama, openai');
  });

  it('PINCER_LLM_API "claude"', () => {
    expect(configError({ env: { PINCER_LLM_API: 'claude' } })).toContain('PINCER_LLM_API');
  });

  it('llm.base_url that is not http(s)', () => {
    writeConfig({ llm: { base_url: 'ftp://files.example.com' } });
    expect(configError()).toContain('config.json llm.base_url');
  });

  it('a short PINCER_TOKEN, without echoing it', () => {
    const message = configError({ env: { PINCER_TOKEN: 'short-secret' } });
    expect(message).toContain('PINCER_TOKEN');
    expect(message).toContain('16');
    expect(message).not.toContain('short-secret');
  });

  it('roots that is not a list in config.json', () => {
    writeConfig({ roots: 42 });
    const message = configError();
    expect(message).toContain('roots');
    expect(message).toContain('config.json roots');
  });

  it('roots holding a non-string', () => {
    writeConfig({ roots: ['ok', 3] });
    expect(configError()).toContain('config.json roots');
  });

  it('PINCER_ROOTS made only of delimiters', () => {
    expect(configError({ env: { PINCER_ROOTS: `${delimiter}${delimiter}` } })).toContain('PINCER_ROOTS');
  });

  it('allowed_hosts that is not a list of strings', () => {
    writeConfig({ allowed_hosts: 'example.com' });
    expect(configError()).toContain('allowed_hosts');
  });

  it('a tool timeout out of range', () => {
    writeConfig({ tool_timeout_ms: 5 });
    expect(configError()).toContain('tool_timeout_ms');
  });
});

describe('--no-auth', () => {
  it.each(['0.0.0.0', '192.168.1.5', '::', 'example.com'])('is refused on host %s', (host) => {
    const message = configError({ flags: { host, noAuth: true } });
    expect(message).toContain('--no-auth');
    expect(message).toContain(host);
  });

  it('is refused when a non-loopback host comes from the environment', () => {
    expect(configError({ flags: { noAuth: true }, env: { PINCER_HOST: '0.0.0.0' } })).toContain('--no-auth');
  });

  it.each(['127.0.0.1', '::1', '[::1]', 'localhost', '127.0.0.2'])('is allowed on loopback host %s', (host) => {
    expect(load({ flags: { host, noAuth: true } }).clientAuth).toBe(false);
  });

  it('is allowed on the default host', () => {
    expect(load({ flags: { noAuth: true } }).clientAuth).toBe(false);
  });
});

describe('where each value came from (sources)', () => {
  it('is empty when everything is a default', () => {
    expect(load().sources).toEqual({});
  });

  it('names config.json, an environment variable, a variable from .env, and a flag', () => {
    writeConfig({ roots: [cwd], approval_timeout_s: 30, llm: { model: 'file-model' } });
    writeDotEnv('PINCER_LLM_API=openai\n');
    const config = load({ flags: { port: '7001' }, env: { PINCER_LLM_MODEL: 'env-model', PINCER_HOST: '127.0.0.2' } });
    expect(config.sources).toEqual({
      port: { kind: 'flag', name: '--port' },
      host: { kind: 'env', name: 'PINCER_HOST' },
      roots: { kind: 'file' },
      approval_timeout_s: { kind: 'file' },
      'llm.model': { kind: 'env', name: 'PINCER_LLM_MODEL' },
      'llm.api': { kind: 'env', name: 'PINCER_LLM_API', file: join(dataDir, '.env') },
    });
  });

  it('names PINCER_ROOTS over config.json roots', () => {
    writeConfig({ roots: [cwd] });
    expect(load({ env: { PINCER_ROOTS: cwd } }).sources.roots).toEqual({ kind: 'env', name: 'PINCER_ROOTS' });
  });

  it('names OLLAMA_HOST when it gives the LLM base URL, and PINCER_LLM_BASE_URL over it', () => {
    expect(load({ env: { OLLAMA_HOST: 'gpu-box' } }).sources['llm.base_url']).toEqual({ kind: 'env', name: 'OLLAMA_HOST' });
    expect(load({ env: { OLLAMA_HOST: 'gpu-box', PINCER_LLM_BASE_URL: 'http://a:1' } }).sources['llm.base_url']).toEqual({
      kind: 'env',
      name: 'PINCER_LLM_BASE_URL',
    });
  });

  it('names PINCER_TOKEN without keeping its value there', () => {
    const config = load({ env: { PINCER_TOKEN: 'a-long-enough-token-123' } });
    expect(config.sources.token).toEqual({ kind: 'env', name: 'PINCER_TOKEN' });
    expect(JSON.stringify(config.sources)).not.toContain('a-long-enough-token-123');
  });
});

describe('settingParsers (shared with PATCH /settings)', () => {
  const from = 'PATCH /settings';
  const problem = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as ConfigError).problem;
    }
    throw new Error('accepted');
  };

  it('accept what config.json accepts', () => {
    expect(settingParsers.approval_timeout_s({ value: 300, from })).toBe(300);
    expect(settingParsers['llm.base_url']({ value: 'http://h:1/', from })).toBe('http://h:1');
    expect(settingParsers['llm.api']({ value: 'openai', from })).toBe('openai');
    expect(settingParsers.roots({ value: ['/a', '/b/../c'], from }, cwd, ownFolders(dataDir))).toEqual(['/a', '/c']);
    expect(settingParsers.roots({ value: [], from }, cwd, ownFolders(dataDir))).toEqual([]);
  });

  it('say what is wrong apart from where the value came from', () => {
    expect(problem(() => settingParsers.approval_timeout_s({ value: 4, from }))).toEqual({
      key: 'approval_timeout_s',
      text: 'must be a whole number from 5 to 86400, got 4',
    });
    expect(problem(() => settingParsers['llm.api']({ value: 'x', from }))).toMatchObject({ key: 'llm.api' });
    expect(problem(() => settingParsers.roots({ value: [3], from }, cwd, ownFolders(dataDir)))).toMatchObject({ key: 'roots' });
    expect(problem(() => settingParsers.roots({ value: [dataDir], from }, cwd, ownFolders(dataDir)))).toMatchObject({ key: 'roots' });
  });

  it('give start-up the same one-line message as before', () => {
    writeConfig({ approval_timeout_s: 4 });
    expect(configError()).toBe('Invalid configuration: approval_timeout_s (from config.json approval_timeout_s) must be a whole number from 5 to 86400, got 4.');
  });
});

describe('ollama_proxy.client', () => {
  it('refuses "default" and "owner": token-less callers would read every client\'s calls and memories', () => {
    for (const client of ['default', 'owner']) {
      writeConfig({ ollama_proxy: { tokenless: true, client } });
      expect(configError()).toContain(`must be a named client (the default client and the owner read every client's calls and memories), got "${client}"`);
    }
    writeConfig({ ollama_proxy: { tokenless: true, client: 'ollama-app' } });
    expect(load().ollamaProxy).toEqual({ tokenless: true, client: 'ollama-app' });
  });
});
