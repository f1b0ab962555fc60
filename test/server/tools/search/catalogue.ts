/**
 * The graded set's tools: definitions in the style of the official MCP servers (names as theirs, descriptions and
 * parameter texts written for this test), imported as Pincer imports them (`<server>__<tool>`, source
 * `mcp:<server>`), plus a bundled-plugin-like finance plugin with Chinese words, plus — at run time — the real
 * definitions of the MCP servers installed here (filesystem, memory, everything; asked `tools/list` over stdio) and
 * Pincer's own built-ins (from a gateway's registry).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createGateway, loadConfig } from '../../../../server/index.js';
import { indexedTool, type IndexedTool } from '../../../../server/tools/search/tool-index.js';

/** A tool as an MCP server lists it. */
export interface McpTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: { type: 'object'; properties?: Record<string, unknown>; required?: string[] };
}

const str = (description: string, extra: Record<string, unknown> = {}) => ({ type: 'string', description, ...extra });
const num = (description: string) => ({ type: 'number', description });
const int = (description: string) => ({ type: 'integer', description });
const bool = (description: string) => ({ type: 'boolean', description });
const strings = (description: string) => ({ type: 'array', items: { type: 'string' }, description });
const schema = (properties: Record<string, unknown>, required: string[] = []): McpTool['inputSchema'] => ({
  type: 'object',
  properties,
  ...(required.length > 0 && { required }),
});
const tool = (name: string, description: string, properties: Record<string, unknown> = {}, required: string[] = []): McpTool => ({
  name,
  description,
  inputSchema: schema(properties, required),
});

const repoPath = str('Filesystem path of the git repository');
const owner = str('Account or organisation that owns the repository');
const repo = str('Repository name');
const project = str('Project ID or URL-encoded path (group/project)');

const GIT: McpTool[] = [
  tool('git_status', 'Report the state of the working tree: which files are modified, staged or untracked.', { repo_path: repoPath }, ['repo_path']),
  tool('git_diff_unstaged', 'Show edits in the working directory that are not staged yet.', { repo_path: repoPath, context_lines: int('Lines of context around each change') }, ['repo_path']),
  tool('git_diff_staged', 'Show the edits that are staged and would go into the next commit.', { repo_path: repoPath, context_lines: int('Lines of context around each change') }, ['repo_path']),
  tool('git_diff', 'Compare the working tree with another branch or commit and show the differences.', { repo_path: repoPath, target: str('Branch or commit to compare against'), context_lines: int('Lines of context') }, ['repo_path', 'target']),
  tool('git_commit', 'Record the staged changes in the repository as a new commit.', { repo_path: repoPath, message: str('Commit message') }, ['repo_path', 'message']),
  tool('git_add', 'Stage files so their current contents go into the next commit.', { repo_path: repoPath, files: strings('Paths of the files to stage') }, ['repo_path', 'files']),
  tool('git_reset', 'Unstage everything that is currently staged, keeping the edits in the working tree.', { repo_path: repoPath }, ['repo_path']),
  tool('git_log', 'List the most recent commits with hash, author, date and message.', { repo_path: repoPath, max_count: int('How many commits to list (default 10)'), start_timestamp: str('Only commits after this date'), end_timestamp: str('Only commits before this date') }, ['repo_path']),
  tool('git_create_branch', 'Start a new branch, optionally based on another branch than the current one.', { repo_path: repoPath, branch_name: str('Name for the new branch'), base_branch: str('Branch to start from') }, ['repo_path', 'branch_name']),
  tool('git_checkout', 'Switch the working tree over to another branch.', { repo_path: repoPath, branch_name: str('Branch to switch to') }, ['repo_path', 'branch_name']),
  tool('git_show', 'Display the contents of a commit or other revision, including its diff.', { repo_path: repoPath, revision: str('Commit hash, tag or branch') }, ['repo_path', 'revision']),
  tool('git_branch', 'Name the local, remote or all branches of a repository, optionally only those that contain a given commit.', { repo_path: repoPath, branch_type: str('local, remote or all'), contains: str('Only branches holding this commit'), not_contains: str('Only branches without this commit') }, ['repo_path', 'branch_type']),
];

const GITHUB: McpTool[] = [
  tool('create_or_update_file', 'Add a new file to a GitHub repository, or overwrite an existing one, as a single commit.', { owner, repo, path: str('Where the file goes'), content: str('What the file should contain'), message: str('Commit message'), branch: str('Branch to commit to'), sha: str('Blob SHA of the file being replaced') }, ['owner', 'repo', 'path', 'content', 'message', 'branch']),
  tool('search_repositories', 'Look up GitHub repositories matching a search string.', { query: str('Search string (GitHub search syntax)'), page: int('Page number'), perPage: int('Results per page, at most 100') }, ['query']),
  tool('create_repository', 'Set up a brand-new GitHub repository under your account.', { name: str('Name for the repository'), description: str('Short description'), private: bool('Whether only you can see it'), autoInit: bool('Start it with a README') }, ['name']),
  tool('get_file_contents', 'Return what a file (or a directory listing) holds in a GitHub repository.', { owner, repo, path: str('Path of the file or directory'), branch: str('Branch to read from') }, ['owner', 'repo', 'path']),
  tool('push_files', 'Commit several files to a GitHub repository together in one commit.', { owner, repo, branch: str('Branch to push to'), files: { type: 'array', description: 'Files to push', items: { type: 'object', properties: { path: str('File path'), content: str('File contents') } } }, message: str('Commit message') }, ['owner', 'repo', 'branch', 'files', 'message']),
  tool('create_issue', 'Open a new issue in a GitHub repository.', { owner, repo, title: str('Issue title'), body: str('Issue text'), assignees: strings('People to assign'), labels: strings('Labels to apply'), milestone: num('Milestone number') }, ['owner', 'repo', 'title']),
  tool('create_pull_request', 'Propose merging one branch into another by opening a GitHub pull request.', { owner, repo, title: str('Pull request title'), body: str('Pull request text'), head: str('Branch holding the changes'), base: str('Branch to merge into'), draft: bool('Open it as a draft') }, ['owner', 'repo', 'title', 'head', 'base']),
  tool('fork_repository', 'Make your own copy (a fork) of a GitHub repository under your account or an organisation.', { owner, repo, organization: str('Organisation to fork into') }, ['owner', 'repo']),
  tool('create_branch', 'Add a branch to a GitHub repository.', { owner, repo, branch: str('Name of the branch to add'), from_branch: str('Branch to start from (default: the default branch)') }, ['owner', 'repo', 'branch']),
  tool('list_commits', 'Page through the commit history of a branch in a GitHub repository.', { owner, repo, sha: str('Branch name or commit SHA'), page: num('Page number'), perPage: num('Results per page') }, ['owner', 'repo']),
  tool('list_issues', 'List the issues of a GitHub repository, filtered by state, labels or date.', { owner, repo, state: str('open, closed or all', { enum: ['open', 'closed', 'all'] }), labels: strings('Only issues with these labels'), sort: str('created, updated or comments'), since: str('Only issues updated after this ISO date') }, ['owner', 'repo']),
  tool('update_issue', 'Change an existing GitHub issue: its title, text, state, labels or assignees.', { owner, repo, issue_number: num('Issue number'), title: str('New title'), body: str('New text'), state: str('open or closed', { enum: ['open', 'closed'] }), labels: strings('New labels'), assignees: strings('New assignees') }, ['owner', 'repo', 'issue_number']),
  tool('add_issue_comment', 'Write a comment on a GitHub issue.', { owner, repo, issue_number: num('Issue number'), body: str('Comment text') }, ['owner', 'repo', 'issue_number', 'body']),
  tool('search_code', 'Search through source code across GitHub repositories.', { q: str('Search string (GitHub code search syntax)'), page: num('Page number'), per_page: num('Results per page') }, ['q']),
  tool('search_issues', 'Search GitHub for issues and pull requests matching a query.', { q: str('Search string (GitHub issue search syntax)'), sort: str('Field to sort by'), order: str('asc or desc') }, ['q']),
  tool('search_users', 'Search for GitHub user accounts.', { q: str('Search string (GitHub user search syntax)'), sort: str('followers, repositories or joined'), order: str('asc or desc') }, ['q']),
  tool('get_issue', 'Fetch one issue of a GitHub repository with all its details.', { owner, repo, issue_number: num('Issue number') }, ['owner', 'repo', 'issue_number']),
  tool('get_pull_request', 'Fetch the details of one pull request.', { owner, repo, pull_number: num('Pull request number') }, ['owner', 'repo', 'pull_number']),
  tool('list_pull_requests', 'List the pull requests of a repository, with filters for state and branches.', { owner, repo, state: str('open, closed or all'), head: str('Filter by head branch'), base: str('Filter by base branch'), sort: str('created, updated, popularity or long-running') }, ['owner', 'repo']),
  tool('create_pull_request_review', 'Submit a review on a pull request: approve it, ask for changes, or just comment.', { owner, repo, pull_number: num('Pull request number'), body: str('Review text'), event: str('APPROVE, REQUEST_CHANGES or COMMENT', { enum: ['APPROVE', 'REQUEST_CHANGES', 'COMMENT'] }), comments: { type: 'array', description: 'Line comments', items: { type: 'object', properties: { path: str('File the comment is on'), line: num('Line number'), body: str('Comment text') } } } }, ['owner', 'repo', 'pull_number', 'body', 'event']),
  tool('merge_pull_request', 'Merge a pull request into its base branch.', { owner, repo, pull_number: num('Pull request number'), commit_title: str('Title of the merge commit'), merge_method: str('merge, squash or rebase', { enum: ['merge', 'squash', 'rebase'] }) }, ['owner', 'repo', 'pull_number']),
  tool('get_pull_request_files', 'List the files a pull request changes.', { owner, repo, pull_number: num('Pull request number') }, ['owner', 'repo', 'pull_number']),
  tool('get_pull_request_status', 'Report the combined status of all checks on a pull request.', { owner, repo, pull_number: num('Pull request number') }, ['owner', 'repo', 'pull_number']),
  tool('update_pull_request_branch', "Bring a pull request's branch up to date with the latest commits of its base branch.", { owner, repo, pull_number: num('Pull request number'), expected_head_sha: str("The head commit SHA you expect the branch to have") }, ['owner', 'repo', 'pull_number']),
  tool('get_pull_request_comments', 'Return the review comments left on a pull request.', { owner, repo, pull_number: num('Pull request number') }, ['owner', 'repo', 'pull_number']),
  tool('get_pull_request_reviews', 'Return the reviews submitted on a pull request.', { owner, repo, pull_number: num('Pull request number') }, ['owner', 'repo', 'pull_number']),
];

const GITLAB: McpTool[] = [
  tool('create_or_update_file', 'Add or overwrite one file in a GitLab project with a commit.', { project_id: project, file_path: str('Path of the file'), content: str('New contents'), commit_message: str('Commit message'), branch: str('Branch to commit to') }, ['project_id', 'file_path', 'content', 'commit_message', 'branch']),
  tool('search_repositories', 'Find GitLab projects by a search string.', { search: str('What to look for'), page: num('Page number'), per_page: num('Results per page') }, ['search']),
  tool('create_repository', 'Set up a new GitLab project.', { name: str('Project name'), description: str('Project description'), visibility: str('private, internal or public', { enum: ['private', 'internal', 'public'] }), initialize_with_readme: bool('Start with a README') }, ['name']),
  tool('get_file_contents', 'Read a file or a directory from a GitLab project.', { project_id: project, file_path: str('Path of the file or directory'), ref: str('Branch, tag or commit to read') }, ['project_id', 'file_path']),
  tool('push_files', 'Commit several files to a GitLab project in one go.', { project_id: project, branch: str('Branch to push to'), files: { type: 'array', description: 'Files to push', items: { type: 'object', properties: { file_path: str('File path'), content: str('File contents') } } }, commit_message: str('Commit message') }, ['project_id', 'branch', 'files', 'commit_message']),
  tool('create_issue', 'Open a new issue in a GitLab project.', { project_id: project, title: str('Issue title'), description: str('Issue text'), assignee_ids: { type: 'array', items: { type: 'number' }, description: 'User IDs to assign' }, labels: strings('Labels to apply') }, ['project_id', 'title']),
  tool('create_merge_request', 'Ask for one branch to be merged into another by opening a GitLab merge request.', { project_id: project, title: str('Merge request title'), description: str('Merge request text'), source_branch: str('Branch with the changes'), target_branch: str('Branch to merge into'), draft: bool('Open it as a draft') }, ['project_id', 'title', 'source_branch', 'target_branch']),
  tool('fork_repository', 'Copy a GitLab project into your own namespace as a fork.', { project_id: project, namespace: str('Namespace to fork into') }, ['project_id']),
  tool('create_branch', 'Add a branch to a GitLab project.', { project_id: project, branch: str('Name of the branch'), ref: str('Branch or commit to start from') }, ['project_id', 'branch']),
];

const FETCH: McpTool[] = [
  tool('fetch', 'Retrieve a URL from the internet and hand back its contents, with HTML turned into markdown. Long pages can be read in pieces with start_index, and raw HTML can be asked for instead.', { url: str('Address to retrieve', { format: 'uri' }), max_length: int('Most characters to return'), start_index: int('Character to start from, to continue a truncated page'), raw: bool('Return the page as it came, without simplifying it') }, ['url']),
];

const TIME: McpTool[] = [
  tool('get_current_time', 'Tell the current time in a given time zone, or in the system time zone when none is given.', { timezone: str("IANA time zone name such as 'Europe/Paris' or 'America/Chicago'") }, ['timezone']),
  tool('convert_time', 'Translate a clock time from one time zone into another.', { source_timezone: str('IANA name of the zone the time is in'), time: str('Time of day, 24-hour HH:MM'), target_timezone: str('IANA name of the zone to convert to') }, ['source_timezone', 'time', 'target_timezone']),
];

const SQLITE: McpTool[] = [
  tool('read_query', 'Run a SELECT statement against the SQLite database and return the rows.', { query: str('The SELECT statement') }, ['query']),
  tool('write_query', 'Run an INSERT, UPDATE or DELETE statement against the SQLite database.', { query: str('The SQL statement') }, ['query']),
  tool('create_table', 'Add a table to the SQLite database with a CREATE TABLE statement.', { query: str('The CREATE TABLE statement') }, ['query']),
  tool('list_tables', 'Name every table in the SQLite database.'),
  tool('describe_table', 'Give the column names and types of one table.', { table_name: str('Table to describe') }, ['table_name']),
  tool('append_insight', 'Add a business insight to the running memo of findings.', { insight: str('What was found in the data') }, ['insight']),
];

const POSTGRES: McpTool[] = [tool('query', 'Run a read-only SQL statement on the connected PostgreSQL database.', { sql: str('The SQL to run') }, ['sql'])];

const PUPPETEER: McpTool[] = [
  tool('puppeteer_navigate', 'Point the browser at a URL and load it.', { url: str('Address to open'), launchOptions: { type: 'object', description: 'Options for starting the browser (headless, args…)' }, allowDangerous: bool('Allow launch options that reduce security') }, ['url']),
  tool('puppeteer_screenshot', 'Capture an image of the current page or of one element on it.', { name: str('Name to store the capture under'), selector: str('CSS selector of the element to capture'), width: num('Width in pixels (default 800)'), height: num('Height in pixels (default 600)'), encoded: bool('Return a base64 data URI instead of binary image data') }, ['name']),
  tool('puppeteer_click', 'Press on an element of the page.', { selector: str('CSS selector of the element') }, ['selector']),
  tool('puppeteer_fill', 'Put text into an input field of the page.', { selector: str('CSS selector of the input'), value: str('Text to enter') }, ['selector', 'value']),
  tool('puppeteer_select', 'Choose an option in a SELECT element of the page.', { selector: str('CSS selector of the select element'), value: str('Option value to choose') }, ['selector', 'value']),
  tool('puppeteer_hover', 'Move the pointer over an element of the page.', { selector: str('CSS selector of the element') }, ['selector']),
  tool('puppeteer_evaluate', "Execute a piece of JavaScript in the page's context and return what it gives back.", { script: str('JavaScript code to evaluate') }, ['script']),
];

const BRAVE: McpTool[] = [
  tool('brave_web_search', 'Search the internet with the Brave Search API: general queries, news, articles and online content, with paging.', { query: str('What to search for (at most 400 characters)'), count: num('Number of results (1-20)'), offset: num('Results to skip, for paging') }, ['query']),
  tool('brave_local_search', "Find local businesses and places (restaurants, shops, services) with Brave's local search: addresses, ratings, opening hours. Falls back to web results when nothing local is found.", { query: str("What and where, e.g. 'bakery near Central Park'"), count: num('Number of results (1-20)') }, ['query']),
];

const MAPS: McpTool[] = [
  tool('maps_geocode', 'Turn a street address into latitude and longitude.', { address: str('The address to look up') }, ['address']),
  tool('maps_reverse_geocode', 'Turn latitude and longitude into a street address.', { latitude: num('Latitude'), longitude: num('Longitude') }, ['latitude', 'longitude']),
  tool('maps_search_places', 'Look for places with the Google Places API by a text query, optionally around a point.', { query: str('What to look for'), location: { type: 'object', properties: { latitude: num('Latitude'), longitude: num('Longitude') }, description: 'Point to search around' }, radius: num('Search radius in meters (at most 50000)') }, ['query']),
  tool('maps_place_details', 'Get full information on one place: address, phone, website, rating, reviews, hours.', { place_id: str('Place ID from a search') }, ['place_id']),
  tool('maps_distance_matrix', 'Work out travel distances and times between several origins and destinations.', { origins: strings('Starting addresses or coordinates'), destinations: strings('End addresses or coordinates'), mode: str('driving, walking, bicycling or transit', { enum: ['driving', 'walking', 'bicycling', 'transit'] }) }, ['origins', 'destinations']),
  tool('maps_elevation', 'Get the elevation of points on the earth.', { locations: { type: 'array', description: 'Points to look up', items: { type: 'object', properties: { latitude: num('Latitude'), longitude: num('Longitude') } } } }, ['locations']),
  tool('maps_directions', 'Plan a route between two places, step by step.', { origin: str('Where the trip starts (address or coordinates)'), destination: str('Where it ends'), mode: str('driving, walking, bicycling or transit', { enum: ['driving', 'walking', 'bicycling', 'transit'] }) }, ['origin', 'destination']),
];

const SLACK: McpTool[] = [
  tool('slack_list_channels', 'List the public channels of the workspace, page by page.', { limit: num('Most channels to return (default 100, at most 200)'), cursor: str('Cursor for the next page') }),
  tool('slack_post_message', 'Send a new message to a Slack channel.', { channel_id: str('ID of the channel'), text: str('Message text') }, ['channel_id', 'text']),
  tool('slack_reply_to_thread', 'Answer inside a message thread of a Slack channel.', { channel_id: str('Channel holding the thread'), thread_ts: str('Timestamp of the parent message (1234567890.123456)'), text: str('Reply text') }, ['channel_id', 'thread_ts', 'text']),
  tool('slack_add_reaction', 'Put an emoji reaction on a message.', { channel_id: str('Channel holding the message'), timestamp: str('Timestamp of the message'), reaction: str('Emoji name without colons') }, ['channel_id', 'timestamp', 'reaction']),
  tool('slack_get_channel_history', 'Read the latest messages posted in a channel.', { channel_id: str('ID of the channel'), limit: num('How many messages (default 10)') }, ['channel_id']),
  tool('slack_get_thread_replies', 'Read every reply in a message thread.', { channel_id: str('Channel holding the thread'), thread_ts: str('Timestamp of the parent message') }, ['channel_id', 'thread_ts']),
  tool('slack_get_users', 'List the members of the workspace with their basic profile information.', { cursor: str('Cursor for the next page'), limit: num('Most users to return (default 100, at most 200)') }),
  tool('slack_get_user_profile', "Get one user's detailed profile.", { user_id: str('ID of the user') }, ['user_id']),
];

const THINKING: McpTool[] = [
  tool(
    'sequentialthinking',
    'A way to reason through a hard problem one thought at a time, revising or branching earlier thoughts as understanding grows. Suited to planning, analysis that may need correcting, and problems whose full scope is unclear at first. Each call adds one thought and says whether more are needed.',
    { thought: str('The current thinking step'), nextThoughtNeeded: bool('Whether another thought is needed'), thoughtNumber: int('Number of this thought'), totalThoughts: int('Estimated thoughts needed'), isRevision: bool('Whether this revises an earlier thought'), revisesThought: int('Which thought is reconsidered'), branchFromThought: int('Thought a branch starts from'), branchId: str('Name of the branch'), needsMoreThoughts: bool('More thoughts are needed than estimated') },
    ['thought', 'nextThoughtNeeded', 'thoughtNumber', 'totalThoughts'],
  ),
];

const SENTRY: McpTool[] = [tool('get_sentry_issue', 'Retrieve a Sentry issue with its stack trace and event details, to investigate a production error.', { issue_id_or_url: str('Sentry issue ID or link') }, ['issue_id_or_url'])];

const REDIS: McpTool[] = [
  tool('set', 'Store a string value under a key in Redis, optionally expiring after some seconds.', { key: str('Key'), value: str('Value'), expireSeconds: num('Seconds until the key expires') }, ['key', 'value']),
  tool('get', 'Read the value stored under a key in Redis.', { key: str('Key') }, ['key']),
  tool('delete', 'Remove one or more keys from Redis.', { key: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }], description: 'Key or keys to remove' } }, ['key']),
  tool('list', 'Name the Redis keys matching a pattern.', { pattern: str('Glob pattern (default *)') }),
];

const GDRIVE: McpTool[] = [tool('search', 'Find files in Google Drive by a query.', { query: str('What to look for') }, ['query'])];

const AWS_KB: McpTool[] = [
  tool('retrieve_from_aws_kb', 'Query an AWS Knowledge Base with Bedrock Agent Runtime and return the passages that answer it.', { query: str('The question'), knowledgeBaseId: str('ID of the knowledge base'), n: num('How many results (default 3)') }, ['query', 'knowledgeBaseId']),
];

const EVERART: McpTool[] = [
  tool('generate_image', 'Create pictures from a text prompt with EverArt models, and open the result in the browser.', { prompt: str('What the picture should show'), model: str('Model ID'), image_count: num('How many pictures') }, ['prompt']),
];

/** The written servers, by name (as Pincer imports them: `<server>__<tool>`). */
export const WRITTEN_SERVERS: Readonly<Record<string, readonly McpTool[]>> = {
  git: GIT,
  github: GITHUB,
  gitlab: GITLAB,
  fetch: FETCH,
  time: TIME,
  sqlite: SQLITE,
  postgres: POSTGRES,
  puppeteer: PUPPETEER,
  'brave-search': BRAVE,
  'google-maps': MAPS,
  slack: SLACK,
  'sequential-thinking': THINKING,
  sentry: SENTRY,
  redis: REDIS,
  gdrive: GDRIVE,
  'aws-kb': AWS_KB,
  everart: EVERART,
};

/** A finance plugin like the bundled investment plugin: English descriptions with the Chinese words its users type. */
export const FINANCE_PLUGIN: readonly IndexedTool[] = [
  {
    name: 'stock_quote',
    title: 'Stock quote',
    description:
      'Live stock prices (股票行情, 实时股价): last price, change and percent change from the previous close, open, high, low, volume and turnover, for A shares (sh600519, sz000001), Hong Kong (00700.HK) and US tickers (AAPL). Look a code up with search_stock first if you only know the company name.',
    source: 'plugin:finance',
    risk: 'safe',
    parameters: schema({ codes: strings('Codes to quote, e.g. ["sh600519", "AAPL"]') }, ['codes']),
  },
  {
    name: 'index_quote',
    title: 'Index quote',
    description: 'Current level of Chinese market indices (大盘指数): 上证指数 sh000001, 深证成指 sz399001, 创业板指 sz399006, 沪深300 sh000300, with change and volume.',
    source: 'plugin:finance',
    risk: 'safe',
    parameters: schema({ codes: strings('Index codes; leave out for the main indices') }),
  },
  {
    name: 'search_stock',
    title: 'Search stocks',
    description: 'Find the code of a stock, fund or ETF by its Chinese name, pinyin initials or partial code (股票代码查询): e.g. 茅台, gzmt, 腾讯, apple.',
    source: 'plugin:finance',
    risk: 'safe',
    parameters: schema({ query: str('Name, pinyin initials or code'), limit: int('Most results (default 10)') }, ['query']),
  },
  {
    name: 'stock_kline',
    title: 'Stock k-line',
    description: 'Price history as candlesticks (K线, 日线, 周线): date, open, high, low, close and volume per bar, daily, weekly, monthly or intraday.',
    source: 'plugin:finance',
    risk: 'safe',
    parameters: schema({ code: str('Stock or index code'), period: str('Length of one bar', { enum: ['daily', 'weekly', 'monthly', '5min', '15min', '30min', '60min'] }), count: int('How many of the latest bars') }, ['code']),
  },
];

/** An MCP server's tools as Pincer imports them. */
export function imported(server: string, tools: readonly McpTool[]): IndexedTool[] {
  return tools.map((t) => ({
    name: `${server}__${t.name}`,
    ...(t.title !== undefined && { title: t.title }),
    description: t.description,
    source: `mcp:${server}`,
    risk: 'sensitive',
    parameters: t.inputSchema,
  }));
}

/** The written servers' tools, imported. */
export function writtenTools(): IndexedTool[] {
  return Object.entries(WRITTEN_SERVERS).flatMap(([server, tools]) => imported(server, tools));
}

const require = createRequire(import.meta.url);

/** The real tool lists of the MCP servers installed here, each asked `tools/list` over stdio. */
export async function installedServerTools(): Promise<IndexedTool[]> {
  const scratch = mkdtempSync(join(tmpdir(), 'pincer-tool-search-'));
  const servers: [string, string, string[]][] = [
    ['filesystem', '@modelcontextprotocol/server-filesystem', [scratch]],
    ['memory', '@modelcontextprotocol/server-memory', []],
    ['everything', '@modelcontextprotocol/server-everything', ['stdio']],
  ];
  try {
    const lists = await Promise.all(
      servers.map(async ([server, pkg, args]) => {
        const entry = join(dirname(require.resolve(`${pkg}/package.json`)), 'dist', 'index.js');
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [entry, ...args],
          stderr: 'ignore',
          env: { PATH: process.env.PATH ?? '', MEMORY_FILE_PATH: join(scratch, 'memory.json') },
        });
        const client = new Client({ name: 'tool-search-test', version: '1.0.0' });
        await client.connect(transport);
        try {
          const { tools } = await client.listTools();
          return imported(
            server,
            tools.map((t) => ({ name: t.name, ...(t.title !== undefined && { title: t.title }), description: t.description ?? '', inputSchema: t.inputSchema as McpTool['inputSchema'] })),
          );
        } finally {
          await client.close();
        }
      }),
    );
    return lists.flat();
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Pincer's own built-in tools, as a gateway registers them. */
export async function builtinTools(): Promise<IndexedTool[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pincer-tool-search-data-'));
  const root = mkdtempSync(join(tmpdir(), 'pincer-tool-search-root-'));
  const config = loadConfig({ flags: { dataDir, port: 0, host: '127.0.0.1' }, env: {}, cwd: root });
  const gateway = createGateway({ config, bundledPluginsDir: null, log: () => {} });
  try {
    return gateway.registry.list().map(indexedTool);
  } finally {
    await gateway.close(1000);
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * Every tool of the graded set: built-ins, the finance plugin, the written servers and the installed ones. The
 * `search_tools` built-in is left out: it is the tool a model searches with, never one it searches for (and its
 * description quotes example requests).
 */
export async function catalogue(): Promise<IndexedTool[]> {
  const [builtins, installed] = await Promise.all([builtinTools(), installedServerTools()]);
  return [...builtins.filter((t) => t.name !== 'search_tools'), ...FINANCE_PLUGIN, ...writtenTools(), ...installed];
}
