import { describe, expect, it } from 'vitest';
import { describeDecided, describeGone } from '../../../renderer/src/popup/messages.js';
import { pendingApproval } from './fixtures.js';

const approval = pendingApproval();
const expiresAt = Date.parse(approval.expires_at);

describe('describeDecided', () => {
  it('allow once names the tool and the client, and says the next call asks again', () => {
    expect(describeDecided(approval, { decision: 'allow_once' }, 'allowed')).toEqual({
      title: 'Allowed once',
      text: 'run_shell from cursor runs now. The next call like it asks again.',
      tone: 'allow',
    });
  });

  it('always allow points at the new rule', () => {
    const told = describeDecided(approval, { decision: 'allow_always', scope: 'exact' }, 'allowed');
    expect(told.title).toBe('Always allowed');
    expect(told.text).toContain('Rules page');
    // A rule decides every client's calls, as the dashboard's notice and Rules table say.
    expect(told.text).toContain('calls like it for every client will not ask again');
    expect(told.tone).toBe('allow');
  });

  it('deny says the assistant is told, and that it reads a message when one was given', () => {
    expect(describeDecided(approval, { decision: 'deny' }, 'denied')).toEqual({
      title: 'Denied',
      text: 'run_shell from cursor was refused; the assistant is told so.',
      tone: 'deny',
    });
    expect(describeDecided(approval, { decision: 'deny', message: 'list them instead' }, 'denied').text).toMatch(/reads your message/);
  });

  it('goes by the status the gateway reported, not by the answer sent', () => {
    expect(describeDecided(approval, { decision: 'allow_once' }, 'denied').title).toBe('Denied');
  });
});

describe('describeGone', () => {
  it('an approval the page never saw (answered before it opened, or an unknown id)', () => {
    const told = describeGone(null, expiresAt);
    expect(told.title).toBe('Nothing to answer');
    expect(told.text).toMatch(/answered, it expired, or its caller stopped waiting/);
  });

  it('one that went away after its time ran out expired', () => {
    expect(describeGone(approval, expiresAt)).toEqual({
      title: 'Expired',
      text: 'run_shell from cursor was not answered in time, so the call was refused.',
      tone: 'deny',
    });
  });

  it('one that went away in time was answered elsewhere or withdrawn', () => {
    const told = describeGone(approval, expiresAt - 30_000);
    expect(told.title).toBe('No longer waiting');
    expect(told.text).toMatch(/answered elsewhere/);
  });

  it('says what the gateway said when an answer was refused for it', () => {
    expect(describeGone(approval, expiresAt - 30_000, 'Already answered in the dashboard.').text).toBe('Already answered in the dashboard.');
  });
});
