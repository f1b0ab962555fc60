import { describe, expect, it } from 'vitest';
import { effectiveRisk } from '../../../../server/tools/sources/risk.js';

/** The one rule every kind of tool source rates its tools by: raised by what a tool says of itself, never lowered. */
describe('effectiveRisk', () => {
  it('keeps the rating of a tool that says nothing of itself', () => {
    for (const rating of ['safe', 'sensitive', 'dangerous'] as const) expect(effectiveRisk(rating, undefined)).toEqual({ risk: rating, why: [] });
  });

  it('asks before a destructive tool that claims to be safe (a plugin declaring safe)', () => {
    expect(effectiveRisk('safe', { destructiveHint: true })).toEqual({ risk: 'sensitive', why: ['it is marked destructive'] });
  });

  it('rates an unrated destructive imported tool dangerous: sensitive until rated, one step up', () => {
    expect(effectiveRisk('sensitive', { destructiveHint: true }).risk).toBe('dangerous');
  });

  it('never lowers: not with destructiveHint false, not past dangerous, not for an unknown rating', () => {
    expect(effectiveRisk('sensitive', { destructiveHint: false }).risk).toBe('sensitive');
    expect(effectiveRisk('dangerous', { destructiveHint: true })).toEqual({ risk: 'dangerous', why: [] });
    expect(effectiveRisk('harmless', undefined).risk).toBe('dangerous');
    expect(effectiveRisk(undefined, { destructiveHint: 'yes' }).risk).toBe('dangerous');
  });

  it('only "true" counts as destructive: a truthy string is not a hint', () => {
    expect(effectiveRisk('safe', { destructiveHint: 'true' }).risk).toBe('safe');
  });

  it('raises to each floor the source sets, with its reason, and not below what it already is', () => {
    const floors = [{ risk: 'sensitive' as const, why: 'its plugin reaches files beyond its own folder' }];
    expect(effectiveRisk('safe', undefined, floors)).toEqual({ risk: 'sensitive', why: ['its plugin reaches files beyond its own folder'] });
    expect(effectiveRisk('safe', { destructiveHint: true }, floors)).toEqual({ risk: 'sensitive', why: ['it is marked destructive'] });
    expect(effectiveRisk('dangerous', undefined, floors)).toEqual({ risk: 'dangerous', why: [] });
  });
});
