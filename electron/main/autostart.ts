import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { app } from 'electron';

/** Start at login: the system's login items on macOS and Windows, an XDG autostart entry on Linux. */
export interface LoginItem {
  /** null where the app cannot set it (Linux without a launchable path). */
  enabled(): boolean | null;
  set(enabled: boolean): void;
}

export function loginItem(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): LoginItem {
  if (platform === 'darwin' || platform === 'win32') {
    return {
      enabled: () => app.getLoginItemSettings().openAtLogin,
      set: (enabled) => app.setLoginItemSettings({ openAtLogin: enabled }),
    };
  }
  const file = join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'autostart', 'pincer.desktop');
  const command = launchCommand(env);
  return {
    enabled: () => (command === undefined ? null : existsSync(file)),
    set: (enabled) => {
      if (!enabled) return rmSync(file, { force: true });
      if (command === undefined) return;
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, desktopEntry(command), { mode: 0o644 });
    },
  };
}

/**
 * How to start this app again at login. An AppImage runs from a mount that is gone after it quits: the entry must
 * name the AppImage file itself. Unpackaged (development), Electron needs the app's folder after it.
 */
function launchCommand(env: NodeJS.ProcessEnv): string[] | undefined {
  const command = env.APPIMAGE ? [env.APPIMAGE] : app.isPackaged ? [process.execPath] : [process.execPath, app.getAppPath()];
  // A line break would end the Exec line early: such a path cannot be written into the entry safely.
  return command.some((arg) => /[\r\n]/.test(arg)) ? undefined : command;
}

/**
 * The desktop entry (XDG Desktop Entry spec). Exec quoting has two layers: inside double quotes `"`, `` ` ``, `$` and
 * `\` take a backslash; then the string-value escape doubles every backslash; `%` (a field code) is written `%%`.
 */
export function desktopEntry(command: string[]): string {
  const quote = (arg: string) => `"${arg.replace(/(["`$\\])/g, '\\$1')}"`.replace(/\\/g, '\\\\').replace(/%/g, '%%');
  const exec = command.map(quote).join(' ');
  return ['[Desktop Entry]', 'Type=Application', 'Name=Pincer', 'Comment=Local tool gateway for AI assistants', `Exec=${exec}`, 'Terminal=false', 'X-GNOME-Autostart-enabled=true', ''].join('\n');
}
