import { describe, expect, it } from 'vitest';
import { parseOwnerDecision } from '../../../server/approvals/owner-decision.js';
import { GatewayError } from '../../../server/errors.js';

/** The 400 a body is refused with, and the problems it lists. */
function refusal(body: unknown): string[] {
  let error: unknown;
  try {
    parseOwnerDecision(body);
  } catch (caught) {
    error = caught;
  }
  expect(error, `${JSON.stringify(body)} was accepted`).toBeInstanceOf(GatewayError);
  const refused = error as GatewayError;
  expect(refused.status).toBe(400);
  const problems = (refused.details as { errors: { message: string }[] }).errors.map((e) => e.message);
  expect(refused.message).toBe(`Invalid decision: ${problems.join('; ')}.`);
  return problems;
}

describe('parseOwnerDecision', () => {
  it.each([
    [{ decision: 'allow_once' }],
    [{ decision: 'deny', message: 'not now' }],
    [{ decision: 'allow_always' }],
    [{ decision: 'allow_always', scope: 'folder', pattern: '/p/src' }],
    [{ decision: 'accept', content: { name: 'Ann' } }],
    [{ decision: 'decline' }],
  ])('accepts %j as it is', (body) => {
    expect(parseOwnerDecision(body)).toEqual(body);
  });

  it.each([null, undefined, 'allow_once', 42, [{ decision: 'allow_once' }]])('refuses %j: not an object', (body) => {
    expect(refusal(body)).toContain('send a JSON object');
  });

  it.each(['allow', 'ALLOW_ONCE', 'approve', '', null])('refuses the decision %j', (decision) => {
    expect(refusal({ decision })[0]).toMatch(/^decision must be one of allow_once, allow_always, deny/);
  });

  it('refuses a field it does not know, by name (a typo must not pass as a plain allow)', () => {
    expect(refusal({ decision: 'allow_once', scopes: 'tool' })).toEqual(['unknown field "scopes"']);
  });

  it.each([
    ['with allow_once', { decision: 'allow_once', scope: 'tool' }],
    ['with deny', { decision: 'deny', scope: 'folder' }],
    ['that is not a scope', { decision: 'allow_always', scope: 'everything' }],
  ])('refuses a scope %s', (_what, body) => {
    expect(refusal(body)[0]).toMatch(/^scope goes with allow_always and is one of /);
  });

  it('refuses a pattern that is not a string', () => {
    expect(refusal({ decision: 'allow_always', scope: 'prefix', pattern: ['git', 'push'] })).toEqual(['pattern must be a string']);
  });

  it('takes a message of 2000 characters and refuses one of 2001', () => {
    expect(parseOwnerDecision({ decision: 'deny', message: 'x'.repeat(2000) }).message).toHaveLength(2000);
    expect(refusal({ decision: 'deny', message: 'x'.repeat(2001) })).toEqual(['message must be a string of at most 2000 characters']);
    expect(refusal({ decision: 'deny', message: 7 })).toEqual(['message must be a string of at most 2000 characters']);
  });

  it.each([
    ['with deny', { decision: 'deny', content: { a: 1 } }],
    ['that is a list', { decision: 'accept', content: ['Ann'] }],
    ['that is null', { decision: 'accept', content: null }],
  ])('refuses content %s', (_what, body) => {
    expect(refusal(body)[0]).toMatch(/^content goes with accept/);
  });

  it('lists every problem of one body at once', () => {
    const problems = refusal({ decision: 'maybe', scope: 'tool', pattern: 1, message: 2, extra: true });
    expect(problems).toHaveLength(5);
    expect(problems[0]).toBe('unknown field "extra"');
  });
});
