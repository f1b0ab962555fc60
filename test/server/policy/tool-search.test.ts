import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClientAccess } from '../../../server/policy/access.js';
import { ToolSearch } from '../../../server/policy/tool-search.js';
import { openStore, type Store } from '../../../server/store/index.js';
import { createSearchToolsTool, SEARCH_TOOLS } from '../../../server/tools/builtin/search-tools.js';
import { ToolRegistry } from '../../../server/tools/registry.js';
import type { AnyTool } from '../../../server/tools/types.js';
import { tempDir } from '../../helpers/gateway.js';

/**
 * Tool search over each caller's own tools, on the real index, registry and client access: what a client may find,
 * and that the index follows tools as they come, go and are turned off.
 */

let dir: string;
let store: Store;
let registry: ToolRegistry;
let access: ClientAccess;
let search: ToolSearch;

beforeEach(() => {
  dir = tempDir('pincer-tool-search-');
  store = openStore(join(dir, 'pincer.db'));
  registry = new ToolRegistry();
  access = new ClientAccess(store);
  search = new ToolSearch(registry, access);
  registry.register(createSearchToolsTool((client, query, limit) => search.findForModel(client, false, query, limit)));
  registry.register(tool('weather_forecast', 'Get the weather forecast for a city: temperature, rain and wind.'));
  registry.register(tool('git_branch_delete', 'Delete a git branch in a repository.'));
  registry.register(tool('send_email', 'Send an email message to a recipient.'));
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function tool(name: string, description: string): AnyTool {
  return { name, description, parameters: { type: 'object', properties: {} }, category: 'test', risk: 'safe', annotations: {}, handler: () => null };
}

const found = (client: string, query: string, owner = false) => search.find(client, owner, query, 10).map((t) => t.name);

describe('tool search', () => {
  it('finds the tool for a task described in plain words, best first', () => {
    expect(found('cursor', 'will it rain tomorrow in the city')[0]).toBe('weather_forecast');
    expect(found('cursor', 'remove a git branch')[0]).toBe('git_branch_delete');
  });

  it('never finds search_tools itself', () => {
    expect(found('cursor', 'find the tool for a task when the tool you need is not in your list', true)).not.toContain(SEARCH_TOOLS);
  });

  it("finds only the caller's own tools: one outside its set stays hidden, even asked for by name", () => {
    access.setTools('cursor', ['weather_forecast']);
    expect(found('cursor', 'delete a git branch')).toEqual([]);
    expect(found('cursor', 'git_branch_delete')).toEqual([]);
    expect(found('claude', 'delete a git branch')).toContain('git_branch_delete');
    expect(found('owner', 'delete a git branch', true)).toContain('git_branch_delete');
  });

  it('follows the registry: a new tool is found at once, a removed or turned-off one no more', () => {
    expect(found('cursor', 'translate text into french')).toEqual([]);
    registry.register(tool('translate', 'Translate text into another language such as French.'), 'plugin:words');
    expect(found('cursor', 'translate text into french')).toEqual(['translate']);
    registry.setEnabled('translate', false);
    expect(found('cursor', 'translate text into french')).toEqual([]);
    registry.setEnabled('translate', true);
    registry.unregister('translate');
    expect(found('cursor', 'translate text into french')).toEqual([]);
  });

  it('keeps to the limit it is given', () => {
    for (let i = 0; i < 5; i++) registry.register(tool(`mail_${i}`, `Send an email message, variant ${i}.`));
    expect(search.find('cursor', false, 'send an email message', 2)).toHaveLength(2);
  });

  it("lists what the model found for that client, and only for that client", () => {
    access.setBudget('cursor', 1, []);
    search.findForModel('cursor', false, 'delete a git branch', 1);
    expect(access.foundFor('cursor')).toEqual(['git_branch_delete']);
    expect(access.foundFor('claude')).toEqual([]);
    expect(access.visible(registry, 'cursor', false).tools.map((t) => t.definition.name)).toEqual([SEARCH_TOOLS, 'git_branch_delete']);
  });

  it('ranks only among the tools it is given', () => {
    const some = registry.list().filter((t) => t.definition.name !== 'git_branch_delete');
    expect(search.rank(some, 'delete a git branch', 5)).not.toContain('git_branch_delete');
    expect(search.rank(registry.list(), 'delete a git branch', 5)[0]).toBe('git_branch_delete');
  });
});
