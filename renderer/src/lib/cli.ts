/**
 * A `pincer …` command to show the owner, aimed at this gateway: the CLI looks for the gateway on its default port,
 * so a gateway on another port is named.
 */
export function pincerCommand(args: string): string {
  const port = location.port || (location.protocol === 'https:' ? '443' : '80');
  return `pincer ${args}${port === '7800' ? '' : ` --port ${port}`}`;
}
