import { app, clipboard, dialog, Notification, session } from 'electron';
import { ConfigError, createGateway, DataDirInUseError, DEFAULT_CLIENT, loadConfig, OWNER, type Gateway } from '../../server/index.js';
import { loginItem, type LoginItem } from './autostart.js';
import { desktopBridge } from './bridge.js';
import { registerIpc } from './ipc.js';
import { bundledPluginsDir, electronSqliteBinding, PRELOAD_FILE, trayIconFile } from './paths.js';
import { ApprovalPopups, POPUP_PARTITION } from './popups.js';
import { TrayController } from './tray.js';
import type { TrayActions, TrayState } from './tray-menu.js';
import { DashboardWindow, denyPermissions } from './windows.js';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

export interface DesktopOptions {
  /** Where the configuration comes from: the same variables and data directory as the `pincer` command. */
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
  platform?: NodeJS.Platform;
}

/** The running desktop app: the gateway in this process, and the shell around it. */
export interface DesktopApp {
  readonly gateway: Gateway;
  readonly url: string;
  readonly tray: TrayController;
  readonly popups: ApprovalPopups;
  readonly dashboard: DashboardWindow;
  /** Everything the shell opened closes, then the gateway stops (pending approvals refused and recorded). */
  shutdown(): Promise<void>;
}

/**
 * Starts the desktop app: one per user (a second launch opens the first one's dashboard), with the gateway
 * in-process on the same data directory as the CLI, so `pincer` commands, `pincer mcp` and the dashboard all meet
 * this gateway and its database. Resolves undefined when this launch is not the one that runs.
 */
export async function startDesktop(options: DesktopOptions = {}): Promise<DesktopApp | undefined> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return undefined;
  }
  // A tray app: closing its last window leaves it (and the gateway) running.
  app.on('window-all-closed', () => {});
  await app.whenReady();

  const gateway = await openGateway(env, log);
  if (!gateway) return undefined;
  const { gateway: gw, url } = gateway;
  const origin = new URL(url).origin;
  denyPermissions(session.defaultSession, origin);
  denyPermissions(session.fromPartition(POPUP_PARTITION), origin);

  const dashboard = new DashboardWindow(origin, () => gw.loginUrl());
  const popups = new ApprovalPopups({ origin, preload: PRELOAD_FILE, pending: () => gw.approvals.pending() });
  const unregisterIpc = registerIpc({
    origin,
    approvalFor: (contents) => popups.approvalFor(contents),
    closePopup: (contents) => popups.closeFor(contents),
    approval: (id) => gw.approvals.get(id),
    decide: (id, answer) => gw.approvals.decide(id, answer, OWNER),
    log,
  });
  const login = loginItem(options.platform, env);
  const tray = new TrayController(() => trayState(gw, url, login), trayActions(gw, dashboard, popups, login), trayIconFile);

  gw.events.on('approval', popups.onApproval);
  for (const event of ['approval', 'call', 'tools'] as const) gw.events.on(event, tray.refresh);
  app.on('second-instance', () => dashboard.open());
  // A crashed page is the page's problem: the gateway lives in this process and keeps answering.
  app.on('render-process-gone', (_event, contents, details) => {
    log(`pincer: a window's page stopped (${details.reason}); the gateway keeps running`);
    if (!dashboard.reloadIfCrashed(contents)) popups.closeFor(contents);
  });

  let stopping: Promise<void> | undefined;
  let stopped = false;
  const shutdown = () =>
    (stopping ??= (async () => {
      for (const signal of SIGNALS) process.off(signal, onSignal);
      gw.events.off('approval', popups.onApproval);
      for (const event of ['approval', 'call', 'tools'] as const) gw.events.off(event, tray.refresh);
      unregisterIpc();
      tray.destroy();
      popups.closeAll();
      dashboard.close();
      await gw.close();
    })());
  app.on('before-quit', (event) => {
    if (stopped) return;
    // Quit waits for the gateway: running calls finish or are recorded cancelled, waiting approvals are refused.
    event.preventDefault();
    void shutdown().finally(() => {
      stopped = true;
      app.quit();
    });
  });
  const onSignal = () => app.quit();
  for (const signal of SIGNALS) process.on(signal, onSignal);

  log(`Pincer desktop: gateway on ${url}, data directory ${gw.config.dataDir}`);
  return { gateway: gw, url, tray, popups, dashboard, shutdown };
}

/**
 * The gateway, listening; on a bad config, a data folder another gateway serves (`pincer serve`, `pincer mcp`) or a
 * taken port the owner sees why in a dialog and the app ends.
 */
async function openGateway(env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<{ gateway: Gateway; url: string } | undefined> {
  let gateway: Gateway;
  try {
    const config = loadConfig({ env });
    gateway = createGateway({ config, desktop: desktopBridge(), sqliteBinding: electronSqliteBinding(), bundledPluginsDir: bundledPluginsDir(), log });
  } catch (error) {
    if (error instanceof DataDirInUseError) {
      // The other gateway's calls, approvals and processes were left as they were.
      return fail(`${capitalize(error.message)}. Stop it first, or set PINCER_HOME to another folder, and start the app again.`);
    }
    return fail(error instanceof ConfigError ? error.message : `The gateway could not start: ${(error as Error).message}`);
  }
  try {
    return { gateway, url: (await gateway.listen()).url };
  } catch (error) {
    await gateway.close(0);
    const { port, host } = gateway.config;
    return fail(
      (error as NodeJS.ErrnoException).code === 'EADDRINUSE'
        ? `Port ${port} on ${host} is in use by another program (or a Pincer gateway on another data folder). Stop it, or set PINCER_PORT, and start the app again.`
        : `The gateway could not listen on ${host}:${port}: ${(error as Error).message}`,
    );
  }

  function fail(message: string): undefined {
    log(`pincer: ${message}`);
    dialog.showErrorBox('Pincer cannot start', message);
    app.exit(1);
    return undefined;
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function trayState(gateway: Gateway, url: string, login: LoginItem): TrayState {
  const midnight = new Date();
  midnight.setHours(0, 0, 0, 0);
  return {
    address: new URL(url).host,
    callsToday: gateway.callsSince(midnight.getTime()),
    paused: gateway.access.paused,
    pending: gateway.approvals.pending().length,
    tools: gateway.registry.list().map(({ definition, source }) => ({
      name: definition.name,
      category: definition.category,
      enabled: gateway.registry.isEnabled(definition.name),
      source,
    })),
    clients: [DEFAULT_CLIENT, ...gateway.clientNames()].map((name) => ({ name, tools: gateway.access.profile(name).tools })),
    startAtLogin: login.enabled(),
  };
}

function trayActions(gateway: Gateway, dashboard: DashboardWindow, popups: ApprovalPopups, login: LoginItem): TrayActions {
  return {
    openDashboard: () => dashboard.open(),
    showApprovals: () => popups.showAll(),
    setToolEnabled: (name, enabled) => gateway.registry.setEnabled(name, enabled),
    setPaused: (paused) => gateway.settings.update({ paused }),
    setClientTools: (client, tools) => gateway.access.setProfile({ ...gateway.access.profile(client), tools }),
    copyToken: () => {
      void clipboard.writeText(gateway.credentials.defaultToken).then(() => {
        if (Notification.isSupported()) new Notification({ title: 'Pincer', body: 'The client token is on the clipboard.', silent: true }).show();
      });
    },
    setStartAtLogin: (enabled) => login.set(enabled),
    quit: () => app.quit(),
  };
}
