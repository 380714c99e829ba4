/**
 * The command classifier's knowledge, as data. Anything not listed here is off the allow-list and
 * classified config_mutation: the list says what is known to be harmless, never what is known to
 * be dangerous, so a tool nobody thought of fails closed.
 */

/** Commands that only read, whatever their arguments. */
export const READ_ONLY_COMMANDS: ReadonlySet<string> = new Set([
  'uptime', 'df', 'free', 'cat', 'ls', 'll', 'ps', 'pgrep', 'top', 'htop', 'uname', 'whoami', 'id', 'groups',
  'w', 'who', 'last', 'lastlog', 'lsblk', 'lscpu', 'lsmem', 'lsmod', 'lspci', 'lsusb', 'lsof', 'lsns',
  'lsipc', 'lsattr', 'blkid', 'du', 'stat', 'file', 'head', 'tail', 'less', 'more', 'grep', 'egrep',
  'fgrep', 'zgrep', 'rg', 'zcat', 'bzcat', 'xzcat', 'zless', 'wc', 'cut', 'tr', 'echo', 'printf', 'pwd',
  'which', 'whereis', 'type', 'printenv', 'vmstat', 'iostat', 'mpstat', 'pidstat', 'sar', 'nproc', 'arch',
  'getent', 'findmnt', 'ss', 'netstat', 'ping', 'ping6', 'traceroute', 'tracepath', 'dig', 'nslookup',
  'host', 'sensors', 'pvs', 'vgs', 'lvs', 'pvdisplay', 'vgdisplay', 'lvdisplay', 'pveversion',
  'pveperf', 'true', 'false', 'test', '[', 'sleep', 'basename', 'dirname', 'realpath', 'readlink',
  'md5sum', 'sha1sum', 'sha256sum', 'sha512sum', 'cksum', 'diff', 'cmp', 'comm', 'column', 'jq', 'nl',
  'tac', 'rev', 'fold', 'strings', 'hexdump', 'xxd', 'od', 'seq', 'locale', 'dpkg-query', 'apt-cache',
  'numfmt', 'expr', 'dmidecode', 'lshw', 'iotop', 'zdb', 'arcstat', 'dnsdomainname', 'tty', 'logname',
  'users', 'iptables-save', 'ip6tables-save', 'nproc', 'lsinitramfs',
  // Read-only unless a flag or argument below says otherwise:
  'date', 'dmesg', 'journalctl', 'sort', 'hwclock', 'smartctl', 'iptables', 'ip6tables', 'ethtool',
  'hostname', 'mount', 'uniq',
]);

/** Allow-listed commands that the given flags turn into writes (`date -s`, `dmesg -c`, `sort -o`). */
export const MUTATING_FLAGS: Readonly<Record<string, readonly string[]>> = {
  date: ['-s', '--set'],
  dmesg: ['-c', '-C', '--clear', '--read-clear', '-n', '--console-level', '-D', '-E', '--console-off', '--console-on'],
  journalctl: ['--vacuum-size', '--vacuum-time', '--vacuum-files', '--rotate', '--flush', '--sync', '--relinquish-var', '--setup-keys', '--update-catalog'],
  sort: ['-o', '--output'],
  mount: ['-a', '--all', '-o', '--options', '-B', '--bind', '-M', '--move', '-R', '--rbind'],
  hwclock: ['--set', '-w', '--systohc', '-s', '--hctosys', '--adjust'],
  smartctl: ['-t', '--test', '-s', '--smart', '-o', '--offlineauto', '-S', '--saveauto', '-X', '--abort'],
  iptables: ['-A', '--append', '-D', '--delete', '-I', '--insert', '-R', '--replace', '-F', '--flush', '-Z', '--zero', '-N', '--new-chain', '-X', '--delete-chain', '-P', '--policy', '-E', '--rename-chain'],
  ip6tables: ['-A', '--append', '-D', '--delete', '-I', '--insert', '-R', '--replace', '-F', '--flush', '-Z', '--zero', '-N', '--new-chain', '-X', '--delete-chain', '-P', '--policy', '-E', '--rename-chain'],
  ethtool: ['-s', '--change', '-K', '--offload', '-G', '--set-ring', '-A', '--pause', '-C', '--coalesce', '-E', '--change-eeprom', '-f', '--flash', '-p', '--identify', '-r', '--negotiate', '-L', '--set-channels', '-X', '--set-rxfh-indir', '-N', '--config-nfc', '-U', '--config-ntuple', '-W', '--set-dump', '--reset'],
  hostname: ['-F', '--file', '-b', '--boot'],
};

/**
 * Allow-listed commands that write when given more positional arguments (`hostname NEW`,
 * `uniq IN OUT`, `date MMDDhhmm`). Arguments starting with `-` or `+` are not positional.
 */
export const MAX_POSITIONALS: Readonly<Record<string, number>> = {
  hostname: 0,
  mount: 0,
  uniq: 1,
  date: 0,
};

/** How a tool with subcommands (`systemctl status`, `zpool destroy`) is judged. */
export interface SubcommandRule {
  /** Subcommands that only read. */
  read: readonly string[];
  /** True when the bare tool (no subcommand) only reads: `systemctl`, `ip addr`. */
  bareIsRead?: boolean;
  destructive?: readonly string[];
  /** Mutations named for the reason text; other subcommands are "not on the read-only allow-list". */
  named?: Readonly<Record<string, string>>;
  /** Global options that take a value, so the value is not mistaken for the subcommand. */
  valueFlags?: readonly string[];
  /** Second-level rules: `docker volume rm`, `ip addr add`. */
  nested?: Readonly<Record<string, SubcommandRule>>;
  /** Flags that make a given subcommand destructive: `docker compose down -v`. */
  destructiveFlags?: Readonly<Record<string, readonly string[]>>;
}

const PACKAGE = 'package mutation';
const KERNEL = 'kernel mutation';
const ENABLEMENT = 'service-enablement mutation';
const named = (category: string, subs: readonly string[]): Record<string, string> =>
  Object.fromEntries(subs.map((s) => [s, category]));

const APT_PACKAGE = ['install', 'reinstall', 'remove', 'purge', 'upgrade', 'dist-upgrade', 'full-upgrade', 'autoremove', 'autopurge', 'build-dep', 'update', 'dselect-upgrade', 'markauto', 'satisfy', 'clean', 'autoclean', 'edit-sources'];
const IP_OBJECT: SubcommandRule = { read: ['show', 'list', 'ls', 'lst', 'sh', 'get', 'help'], bareIsRead: true };
const DOCKER_READ = ['ps', 'ls', 'list', 'inspect', 'logs', 'images', 'stats', 'top', 'port', 'diff', 'history', 'version', 'info', 'df', 'events', 'config'];
const DOCKER_OBJECT: SubcommandRule = { read: DOCKER_READ, bareIsRead: true };
const COMPOSE: SubcommandRule = {
  read: DOCKER_READ,
  valueFlags: ['-f', '--file', '-p', '--project-name', '--project-directory', '--env-file', '--profile'],
  destructiveFlags: { down: ['-v', '--volumes'] },
};
const DOCKER: SubcommandRule = {
  read: DOCKER_READ,
  valueFlags: ['-H', '--host', '-c', '--context', '--config', '-l', '--log-level'],
  nested: {
    container: DOCKER_OBJECT,
    image: DOCKER_OBJECT,
    network: DOCKER_OBJECT,
    volume: { ...DOCKER_OBJECT, destructive: ['rm', 'remove', 'prune'] },
    system: { read: ['df', 'info', 'events'], destructive: ['prune'] },
    compose: COMPOSE,
  },
};

/** Tools judged by their subcommand. */
export const SUBCOMMAND_TOOLS: Readonly<Record<string, SubcommandRule>> = {
  systemctl: {
    read: ['status', 'show', 'cat', 'list-units', 'list-unit-files', 'list-sockets', 'list-timers', 'list-jobs', 'list-dependencies', 'list-machines', 'is-active', 'is-enabled', 'is-failed', 'is-system-running', 'get-default', 'help'],
    bareIsRead: true,
    named: named(ENABLEMENT, ['enable', 'disable', 'mask', 'unmask', 'reenable', 'preset', 'preset-all', 'set-default', 'link', 'revert', 'edit', 'set-property', 'daemon-reload', 'daemon-reexec', 'isolate']),
    valueFlags: ['-H', '--host', '-M', '--machine', '-t', '--type', '-p', '--property', '--state', '-n', '--lines', '-o', '--output'],
  },
  service: { read: [], bareIsRead: false, named: {} },
  'apt-get': { read: ['check', 'changelog', 'help'], named: named(PACKAGE, APT_PACKAGE), valueFlags: ['-o', '--option', '-c', '--config-file', '-t', '--target-release'] },
  apt: { read: ['list', 'search', 'show', 'showsrc', 'policy', 'depends', 'rdepends', 'changelog', 'help'], named: named(PACKAGE, APT_PACKAGE), valueFlags: ['-o', '--option', '-c', '--config-file', '-t', '--target-release'] },
  aptitude: { read: ['search', 'show', 'why', 'why-not', 'versions'], named: named(PACKAGE, [...APT_PACKAGE, 'safe-upgrade', 'hold', 'unhold']) },
  yum: { read: ['list', 'info', 'search', 'provides', 'repolist', 'check-update', 'deplist', 'repoquery'], named: named(PACKAGE, ['install', 'remove', 'erase', 'update', 'upgrade', 'downgrade', 'reinstall', 'groupinstall', 'autoremove', 'distro-sync', 'localinstall']) },
  dnf: { read: ['list', 'info', 'search', 'provides', 'repolist', 'check-update', 'deplist', 'repoquery'], named: named(PACKAGE, ['install', 'remove', 'erase', 'update', 'upgrade', 'downgrade', 'reinstall', 'groupinstall', 'autoremove', 'distro-sync', 'swap']) },
  zypper: { read: ['search', 'se', 'info', 'if', 'list-updates', 'lu', 'repos', 'lr', 'packages', 'pa', 'patches'], named: named(PACKAGE, ['install', 'in', 'remove', 'rm', 'update', 'up', 'dist-upgrade', 'dup', 'patch']) },
  apk: { read: ['info', 'search', 'list', 'policy', 'stats'], named: named(PACKAGE, ['add', 'del', 'upgrade', 'update', 'fix']) },
  snap: { read: ['list', 'info', 'find', 'version', 'services', 'changes'], named: named(PACKAGE, ['install', 'remove', 'refresh', 'revert']) },
  flatpak: { read: ['list', 'info', 'search'], named: named(PACKAGE, ['install', 'uninstall', 'update']) },
  pip: { read: ['list', 'show', 'freeze', 'check'], named: named(PACKAGE, ['install', 'uninstall']) },
  pip3: { read: ['list', 'show', 'freeze', 'check'], named: named(PACKAGE, ['install', 'uninstall']) },
  ip: {
    read: [],
    valueFlags: ['-n', '-netns', '-f', '-family', '-b', '-batch', '-rc', '-rcvbuf'],
    nested: Object.fromEntries(
      ['addr', 'address', 'a', 'link', 'l', 'route', 'r', 'ro', 'neigh', 'neighbour', 'n', 'rule', 'ru', 'maddr', 'm', 'tunnel', 'tun', 'netns', 'tuntap', 'xfrm', 'mroute', 'ntable', 'token', 'monitor', 'mon', 'vrf', 'nexthop', 'stats'].map((o) => [o, IP_OBJECT]),
    ),
  },
  zpool: { read: ['status', 'list', 'iostat', 'get', 'history', 'events'], destructive: ['destroy', 'labelclear', 'create'] },
  zfs: { read: ['list', 'get', 'holds', 'userspace', 'groupspace', 'version'], destructive: ['destroy', 'rollback'] },
  qm: { read: ['list', 'status', 'config', 'pending', 'showcmd', 'listsnapshot', 'help'], destructive: ['destroy'] },
  pct: { read: ['list', 'status', 'config', 'pending', 'listsnapshot', 'df', 'help'], destructive: ['destroy'] },
  pvesh: { read: ['get', 'ls', 'usage', 'help'], destructive: ['delete'] },
  pvecm: { read: ['status', 'nodes', 'help'], destructive: ['delnode'] },
  pvesm: { read: ['status', 'list', 'path', 'help'], destructive: ['free'] },
  'ha-manager': { read: ['status', 'config', 'help'] },
  cryptsetup: { read: ['status', 'luksDump', 'isLuks', 'tcryptDump', 'luksUUID'], destructive: ['luksFormat', 'erase', 'luksErase'] },
  docker: DOCKER,
  podman: DOCKER,
  'docker-compose': COMPOSE,
  kubectl: { read: ['get', 'describe', 'logs', 'top', 'version', 'explain', 'api-resources', 'api-versions', 'cluster-info'], valueFlags: ['-n', '--namespace', '--context', '--kubeconfig', '-s', '--server'] },
  git: { read: ['status', 'log', 'diff', 'show', 'rev-parse', 'ls-files', 'ls-remote', 'describe', 'blame', 'grep', 'shortlog'], valueFlags: ['-C', '-c'] },
  timedatectl: { read: ['status', 'show', 'list-timezones', 'timesync-status', 'show-timesync'], bareIsRead: true },
  hostnamectl: { read: ['status'], bareIsRead: true },
  networkctl: { read: ['list', 'status', 'lldp', 'label'], bareIsRead: true },
  loginctl: { read: ['list-sessions', 'list-users', 'list-seats', 'show-session', 'show-user', 'session-status', 'user-status', 'seat-status'], bareIsRead: true },
  nft: { read: ['list', 'describe'], valueFlags: ['-f', '--file', '-I', '--includepath'] },
  ufw: { read: ['status', 'show', 'version'] },
};

/** Package, kernel and service-enablement tools: config_mutation at least whatever their arguments. */
export const ALWAYS_MUTATING: Readonly<Record<string, string>> = {
  ...named(KERNEL, ['modprobe', 'insmod', 'rmmod', 'depmod', 'kexec', 'update-initramfs', 'mkinitramfs', 'dracut', 'update-grub', 'grub-install', 'grub-mkconfig', 'kernel-install', 'proxmox-boot-tool']),
  ...named(ENABLEMENT, ['update-rc.d', 'chkconfig', 'rc-update', 'invoke-rc.d']),
  ...named(PACKAGE, ['dpkg-reconfigure', 'needrestart', 'unattended-upgrade', 'unattended-upgrades', 'pveupgrade']),
};

/** Commands that are destructive whatever their arguments: they exist to erase or overwrite storage. */
export const ALWAYS_DESTRUCTIVE: Readonly<Record<string, string>> = {
  ...named('creates a filesystem (erases what was there)', ['mkfs', 'mke2fs', 'mkswap', 'mkdosfs', 'mkntfs']),
  ...named('wipes a device', ['wipefs', 'shred', 'blkdiscard']),
  ...named('removes LVM storage', ['lvremove', 'vgremove', 'pvremove']),
};

/** Interpreters whose programs the classifier does not read. */
export const INTERPRETERS: ReadonlySet<string> = new Set([
  'python', 'python2', 'python3', 'perl', 'ruby', 'node', 'nodejs', 'php', 'lua', 'tclsh', 'expect', 'pwsh', 'Rscript', 'gawk', 'mawk', 'nawk',
]);

/** Shells: `sh -c '…'` is classified by its command string; a shell reading stdin is not read-only. */
export const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'ash', 'mksh', 'fish', 'csh', 'tcsh']);

/** Patterns that mark destructive intent inside text the classifier cannot parse (scripts, ssh). */
export const DESTRUCTIVE_TEXT_PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bmkfs(\.\w+)?\b|\bmke2fs\b|\bmkswap\b/, 'creates a filesystem'],
  [/\bwipefs\b|\bblkdiscard\b|\bshred\b|\bsgdisk\s+(-Z|--zap)/, 'wipes a device'],
  [/\bdd\b[^\n|;&]*\bof=\/dev\/(?!null\b|zero\b|stdout\b|stderr\b)/, 'writes a device with dd'],
  [/>\s*\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|md|dm-|mapper\/|disk\/|zd|rbd)/, 'overwrites a block device'],
  [/\brm\s+(?:-\S*\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\s+(?:-\S*\s+)*(?:\/\*?|~\/?|\*)(?=[\s'";|&)]|$)/, 'removes the filesystem root recursively'],
  [/--no-preserve-root/, 'removes the filesystem root'],
  [/\bzpool\s+(destroy|labelclear)\b|\bzfs\s+destroy\b/, 'destroys ZFS data'],
  [/\b(qm|pct)\s+destroy\b/, 'destroys a guest'],
  [/\b(lv|vg|pv)remove\b/, 'removes LVM storage'],
  [/\bcryptsetup\s+(luksFormat|erase|luksErase)\b/, 'erases encrypted storage'],
  [/\bdrop\s+(database|schema|table)\b/i, 'drops a database object'],
];

/** Paths whose recursive removal, re-permissioning or moving wrecks the machine. */
export const CRITICAL_PATHS: ReadonlySet<string> = new Set([
  '/', '/bin', '/boot', '/dev', '/etc', '/home', '/lib', '/lib32', '/lib64', '/opt', '/proc', '/root', '/sbin',
  '/srv', '/sys', '/usr', '/var', '/etc/pve', '/var/lib', '/var/lib/vz', '/var/lib/pve-cluster', '/var/lib/docker',
  '/var/lib/mysql', '/var/lib/postgresql', '~', '.', '..', '*',
]);
