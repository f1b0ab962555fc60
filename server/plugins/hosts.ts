import type { PluginManifest } from './manifest.js';

/**
 * Hosts a plugin's HTTP client may reach: the manifest's, plus those of the URLs the owner set in the plugin's
 * settings (the owner chose those addresses; the URL policy still applies to them).
 */
export function allowedHosts(manifest: PluginManifest, settings: Record<string, unknown>): Set<string> {
  const hosts = new Set(manifest.permissions.hosts);
  for (const value of Object.values(settings)) {
    if (typeof value !== 'string' || !/^https?:\/\//i.test(value)) continue;
    try {
      hosts.add(new URL(value).hostname.toLowerCase());
    } catch {
      // Not a URL after all: it names no host.
    }
  }
  return hosts;
}
