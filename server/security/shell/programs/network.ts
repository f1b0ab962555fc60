import { type Check, flags, onlyWords, optionsOnly } from './check.js';

/** Network programs: the few that only print local settings, and those that reach other machines. */

export const NETWORK_CHECKS: ReadonlyArray<readonly [string, Check]> = [
  ['route', optionsOnly(/^-[nveA]+$|^inet6?$/, 'changes the routing table')],
  ['arp', optionsOnly(/^-[anve]+$/, 'changes the ARP table')],
  [
    'ss',
    flags({
      valueShort: 'fAFD',
      valueLong: ['family', 'query', 'filter'],
      badShort: 'KD',
      badLong: ['kill', 'diag'],
      badWhy: 'closes connections or writes a dump file',
    }),
  ],
  ['ifconfig', onlyWords(/^-[asv]$/, 'changes a network interface')],
  [
    'ip',
    onlyWords(
      /^(?:-(?:4|6|br|brief|c|color|s|stats|d|details|j|json|p|pretty|o|oneline)|a|addr|address|link|l|route|r|ro|neigh|n|show|list|ls)$/,
      'changes network settings',
    ),
  ],
];

export const NETWORK = new Set([
  'curl', 'wget', 'nc', 'ncat', 'netcat', 'socat', 'telnet', 'ssh', 'scp', 'sftp', 'ftp', 'tftp', 'rsync', 'openssl',
  'mail', 'mailx', 'sendmail', 'mutt', 'http', 'https', 'xh', 'httpie', 'aria2c', 'lftp', 'smbclient', 'dig',
  'nslookup', 'host', 'ping', 'traceroute', 'whois', 'nmap', 'gh', 'aws', 'gsutil', 'gcloud', 'az', 'rclone', 's3cmd',
  'curlie', 'wscat', 'websocat', 'cryptcat', 'pwncat', 'sbd',
]);

/** Tools that open raw connections: with a shell on the other end of a pipe, a reverse shell. */
export const RAW_SOCKET = new Set(['nc', 'ncat', 'netcat', 'socat', 'telnet', 'openssl', 'cryptcat', 'pwncat', 'sbd']);
