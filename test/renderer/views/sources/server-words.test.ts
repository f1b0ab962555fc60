import { describe, expect, it } from 'vitest';
import { EMPTY_FORM, entryFromForm } from '../../../../renderer/src/views/sources/server-words.js';

describe('entryFromForm', () => {
  const stdio = { ...EMPTY_FORM, name: ' files ', command: ' npx ' };

  it('makes a stdio entry with one argument a line and NAME=value environment lines', () => {
    const form = { ...stdio, args: '-y\n\n@scope/server-files\n/home/me/My Documents\n', env: 'LOG=debug\r\n\nURL=http://x/?a=b\n' };
    expect(entryFromForm(form, [])).toEqual({
      name: 'files',
      entry: { command: 'npx', args: ['-y', '@scope/server-files', '/home/me/My Documents'], env: { LOG: 'debug', URL: 'http://x/?a=b' } },
    });
  });

  it('sends no args or env when there are none', () => {
    expect(entryFromForm(stdio, [])).toEqual({ name: 'files', entry: { command: 'npx' } });
  });

  it('says which environment line is not NAME=value', () => {
    expect(entryFromForm({ ...stdio, env: 'A=1\nnonsense' }, [])).toEqual({ problem: 'Environment line 2 is not NAME=value: nonsense' });
    expect(entryFromForm({ ...stdio, env: '=value' }, [])).toMatchObject({ problem: expect.stringMatching(/line 1/) });
  });

  it('makes an HTTP entry, with the token only when one is given', () => {
    const http = { ...EMPTY_FORM, transport: 'http' as const, name: 'remote', url: ' http://127.0.0.1:8000/mcp ', command: 'left over' };
    expect(entryFromForm(http, [])).toEqual({ name: 'remote', entry: { url: 'http://127.0.0.1:8000/mcp' } });
    expect(entryFromForm({ ...http, token: 'secret' }, [])).toEqual({ name: 'remote', entry: { url: 'http://127.0.0.1:8000/mcp', token: 'secret' } });
  });

  it('asks for what is missing', () => {
    expect(entryFromForm({ ...stdio, name: ' ' }, [])).toMatchObject({ problem: expect.stringMatching(/name/) });
    expect(entryFromForm({ ...stdio, command: '' }, [])).toMatchObject({ problem: expect.stringMatching(/command/) });
    expect(entryFromForm({ ...EMPTY_FORM, transport: 'http', name: 'r' }, [])).toMatchObject({ problem: expect.stringMatching(/URL/) });
  });

  it('never replaces a server that is there', () => {
    expect(entryFromForm(stdio, ['files'])).toMatchObject({ problem: expect.stringMatching(/already a server named "files"/) });
  });

  it('leaves the name\'s characters and the URL\'s scheme to the gateway, which says what is wrong', () => {
    expect(entryFromForm({ ...stdio, name: 'my server' }, [])).toMatchObject({ name: 'my server' });
    expect(entryFromForm({ ...EMPTY_FORM, transport: 'http', name: 'r', url: 'ftp://x' }, [])).toMatchObject({ entry: { url: 'ftp://x' } });
  });
});
