import { describe, expect, it } from 'vitest';
import { acceptNotice, controlsOf, problemOf } from '../../../../renderer/src/views/sources/card-words.js';
import { held, plugin, server, tool } from './fixtures.js';

describe('controlsOf: the source-wide actions', () => {
  it('a new plugin is accepted whole, naming the hash the owner saw; never accepted, it cannot be disabled', () => {
    const controls = controlsOf(plugin('greeter', 'held', { held_because: 'new' }));
    expect(controls.accept).toMatchObject({ label: 'Accept', primary: true, action: { kind: 'accept' } });
    expect(controls.toggle).toBeNull();
    expect(controls.remove?.confirmLabel).toBe('Delete its folder');
  });

  it('a changed plugin offers Accept change and Disable; a disabled one Enable', () => {
    expect(controlsOf(plugin('w', 'held', { held_because: 'changed', accepted_at: '2026-12-01T10:00:00Z' }))).toMatchObject({ accept: { label: 'Accept change' }, toggle: 'disable' });
    expect(controlsOf(plugin('w', 'disabled'))).toMatchObject({ accept: null, toggle: 'enable' });
    // A failed plugin can be disabled only once it was accepted: that is what disabling keeps.
    expect(controlsOf(plugin('w', 'failed')).toggle).toBeNull();
    expect(controlsOf(plugin('w', 'failed', { accepted_at: '2026-12-01T10:00:00Z' })).toggle).toBe('disable');
  });

  it('a bundled plugin can be turned off, never removed', () => {
    expect(controlsOf(plugin('investment', 'running', {}, { origin: 'bundled' }))).toMatchObject({ toggle: 'disable', remove: null });
  });

  it('a server accepts its waiting tools together, rated sensitive, primary while one is held back', () => {
    const waiting = controlsOf(server('s', 'running', { tools: [tool('a', 'active', { accepted: false }), held('b', 'flagged'), tool('c', 'disabled')] }));
    expect(waiting.accept).toMatchObject({ label: 'Accept all waiting (2)', named: ' of s', primary: true, action: { kind: 'accept', risk: 'sensitive' } });
    expect(controlsOf(server('s', 'running', { tools: [tool('a', 'active', { accepted: false })] })).accept?.primary).toBe(false);
    expect(controlsOf(server('s', 'running', { tools: [tool('a', 'active')] })).accept).toBeNull();
  });

  it('a server is disabled or enabled whatever its state, and always removable', () => {
    expect(controlsOf(server('s', 'failed'))).toMatchObject({ toggle: 'disable', remove: { confirmLabel: 'Remove it and what you accepted' } });
    expect(controlsOf(server('s', 'disabled')).toggle).toBe('enable');
  });
});

describe('problemOf', () => {
  it('says a failure or a restart loudly, for either kind', () => {
    expect(problemOf(plugin('p', 'failed', { reason: 'SyntaxError: Unexpected token' }))).toMatchObject({ label: 'Error:', loud: true, tone: 'fail' });
    expect(problemOf(server('s', 'restarting', { reason: 'the server process exited (SIGKILL)' }))).toMatchObject({ label: 'Restarting after:', loud: true });
  });

  it('a server\'s last error stays, quietly and with when, once it runs again', () => {
    const s = server('s', 'running', { reason: 'the server process exited (SIGKILL)' }, { last_error_at: '2026-12-01T10:00:00Z' });
    expect(problemOf(s)).toMatchObject({ label: 'Last error:', loud: false, at: '2026-12-01T10:00:00Z' });
  });

  it('a plugin\'s reason says why it waits', () => {
    expect(problemOf(plugin('p', 'held', { held_because: 'new', reason: 'none of its code runs until the owner accepts it' }))).toMatchObject({ label: 'Why:', tone: 'wait' });
    expect(problemOf(plugin('p', 'running'))).toBeNull();
  });
});

describe('acceptNotice', () => {
  it('tells what accepting a plugin runs, first time or again', () => {
    expect(acceptNotice(plugin('p', 'held', { held_because: 'new' }))).toEqual({ text: expect.stringMatching(/^Accepting runs its code for the first time, as it is now/), warn: false });
    expect(acceptNotice(plugin('p', 'held', { held_because: 'changed' }))?.text).toMatch(/^Accepting the change runs its code again/);
    expect(acceptNotice(plugin('p', 'running'))).toBeNull();
  });

  it('gives a server\'s sandbox notice wherever one of its tools can be accepted', () => {
    const s = server('s', 'running', { tools: [held('a', 'flagged')] });
    expect(acceptNotice(s)).toEqual({ text: s.server.notice, warn: true });
    expect(acceptNotice(server('s', 'running', { tools: [tool('a', 'active'), tool('b', 'invalid')] }))).toBeNull();
  });
});
