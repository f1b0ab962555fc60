/** Programs that change files, processes, users or installed software: never read-only. */

export const MODIFIES_FILES = new Set([
  'rm', 'rmdir', 'mv', 'cp', 'ln', 'mkdir', 'touch', 'chmod', 'chown', 'chgrp', 'truncate', 'shred', 'install', 'dd',
  'tar', 'zip', 'unzip', 'gzip', 'gunzip', 'bzip2', 'bunzip2', 'xz', 'unxz', 'zstd', '7z', 'patch', 'split', 'csplit',
  'mkfifo', 'mknod', 'setfacl', 'chattr', 'rename', 'wipe', 'srm', 'unlink', 'trash', 'trash-put', 'sync', 'mktemp',
  'kill', 'pkill', 'killall', 'crontab', 'at', 'useradd', 'userdel', 'usermod', 'passwd', 'chpasswd', 'iptables',
  'ufw', 'apt', 'apt-get', 'dnf', 'yum', 'brew', 'snap', 'flatpak',
]);
