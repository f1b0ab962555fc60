import { describe, expect, it } from 'vitest';
import { canonicalName, closestNames, nameResolver } from '../../../../server/llm/recovery/names.js';

/** Tool names as small models misspell them: mended only to the one offered tool they can mean. */

const offered = ['get_time', 'web_search', 'fetchUrl', 'ReadFile', 'github__create_issue'];

describe('nameResolver', () => {
  const resolve = nameResolver(offered);

  it('an offered name is itself', () => {
    for (const name of offered) expect(resolve(name)).toBe(name);
  });

  it('strips one namespace prefix, with ".", ":" or "/"', () => {
    for (const prefix of ['functions', 'default_api', 'tools', 'tool', 'function']) {
      for (const separator of ['.', ':', '/']) expect(resolve(`${prefix}${separator}get_time`)).toBe('get_time');
    }
    expect(resolve('Functions.web_search')).toBe('web_search');
    expect(resolve('functions.functions.get_time')).toBeUndefined(); // one prefix, not any number
    expect(resolve('functions_get_time')).toBeUndefined();
  });

  it('matches across case conventions: camelCase, PascalCase, kebab-case, upper case', () => {
    for (const written of ['getTime', 'GetTime', 'get-time', 'GET_TIME', 'Get_Time', 'GET-TIME']) expect(resolve(written)).toBe('get_time');
    expect(resolve('fetch_url')).toBe('fetchUrl');
    expect(resolve('FetchURL')).toBe('fetchUrl'); // an acronym is one word: fetch_url
    expect(resolve('read_file')).toBe('ReadFile');
    expect(resolve('readFile')).toBe('ReadFile');
    expect(resolve('default_api:WebSearch')).toBe('web_search');
    expect(resolve('Github__Create_Issue')).toBe('github__create_issue');
  });

  it('two offered tools with the same canonical form resolve to neither', () => {
    const colliding = nameResolver(['get_time', 'getTime', 'other']);
    expect(colliding('get_time')).toBe('get_time');
    expect(colliding('getTime')).toBe('getTime');
    expect(colliding('GetTime')).toBeUndefined();
    expect(colliding('get-time')).toBeUndefined();
    expect(colliding('functions.GET_TIME')).toBeUndefined();
    expect(colliding('other')).toBe('other');
  });

  it('an unknown name, even one letter off, is undefined: never a nearest guess', () => {
    expect(resolve('get_tme')).toBeUndefined();
    expect(resolve('search')).toBeUndefined();
    expect(resolve('delete_everything')).toBeUndefined();
    expect(resolve('')).toBeUndefined();
    expect(nameResolver([])('get_time')).toBeUndefined();
  });

  it('a name offered twice is still one tool', () => {
    expect(nameResolver(['get_time', 'get_time'])('getTime')).toBe('get_time');
  });

  it('acronyms split like words', () => {
    expect(canonicalName('getHTTPStatus')).toBe('get_http_status');
    expect(canonicalName('HTTPServer')).toBe('http_server');
    expect(canonicalName('getV2Time')).toBe('get_v2_time');
  });
});

describe('closestNames', () => {
  it('orders by edit distance with shared word parts counting for more', () => {
    const names = ['get_time', 'set_weather', 'weather_forecast', 'delete_file', 'x'];
    expect(closestNames('get_weather', names)).toEqual(['set_weather', 'get_time', 'weather_forecast']);
  });

  it('a shared word beats a closer spelling', () => {
    expect(closestNames('search', ['fetch', 'web_search', 'list'])).toEqual(['web_search', 'fetch']);
  });

  it('compares canonical forms, the prefix stripped', () => {
    expect(closestNames('functions.getTme', ['get_time', 'set_timer', 'unrelated_tool'])).toEqual(['get_time', 'set_timer']);
  });

  it('gives at most n and leaves out names with nothing in common', () => {
    const names = ['read_a', 'read_b', 'read_c', 'read_d', 'zzz'];
    expect(closestNames('read', names)).toHaveLength(3);
    expect(closestNames('read', names, 1)).toEqual(['read_a']);
    expect(closestNames('read', names, 10)).not.toContain('zzz');
    expect(closestNames('anything', [])).toEqual([]);
  });
});
