/**
 * Tools judged by their subcommand (`systemctl status`, `zpool destroy`), as data: which
 * subcommands only read, which destroy, and which flags turn a read into a write.
 */
import { ENABLEMENT, named, PACKAGE } from './command-rules.js';

const FORCE = ['--force', '-force'];
const EXT_DIFF = 'runs the external diff program the configuration names';

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
  /** Flags that make the bare tool a read (`ceph -s`); without one it reads commands from stdin. */
  bareReadFlags?: readonly string[];
  /** Second-level rules: `docker volume rm`, `ip addr add`. */
  nested?: Readonly<Record<string, SubcommandRule>>;
  /** Flags that make a given subcommand destructive: `docker compose down -v`. */
  destructiveFlags?: Readonly<Record<string, readonly string[]>>;
  /** Flags that make a given read-only subcommand write or run something: `git log --output`. */
  mutatingFlags?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Flags that make any use of the tool a mutation, wherever they stand: `nft -f`, `ip -batch`. */
  mutatingGlobal?: Readonly<Record<string, string>>;
}

const APT_PACKAGE = [
  'install',
  'reinstall',
  'remove',
  'purge',
  'upgrade',
  'dist-upgrade',
  'full-upgrade',
  'autoremove',
  'autopurge',
  'build-dep',
  'update',
  'dselect-upgrade',
  'markauto',
  'satisfy',
  'clean',
  'autoclean',
  'edit-sources',
];
// APT configuration can name programs (Dir::Bin::Methods, hooks) and cache files.
const APT_OPTIONS: Readonly<Record<string, string>> = {
  '-o': 'sets APT configuration, which can name programs to run',
  '--option': 'sets APT configuration, which can name programs to run',
  '-c': 'reads another APT configuration',
  '--config-file': 'reads another APT configuration',
};
const IP_OBJECT: SubcommandRule = { read: ['show', 'list', 'ls', 'lst', 'sh', 'get', 'help'], bareIsRead: true };
const DOCKER_READ = [
  'ps',
  'ls',
  'list',
  'inspect',
  'logs',
  'images',
  'stats',
  'top',
  'port',
  'diff',
  'history',
  'version',
  'info',
  'df',
  'events',
];
const DOCKER_OBJECT: SubcommandRule = { read: DOCKER_READ, bareIsRead: true };
const COMPOSE: SubcommandRule = {
  read: [...DOCKER_READ, 'config'],
  mutatingFlags: { config: { '-o': 'writes a file', '--output': 'writes a file' } },
  valueFlags: [
    '-f',
    '--file',
    '-p',
    '--project-name',
    '--project-directory',
    '--env-file',
    '--profile',
    '--ansi',
    '--parallel',
    '--progress',
  ],
  destructiveFlags: { down: ['-v', '--volumes'] },
};
const DOCKER: SubcommandRule = {
  read: DOCKER_READ,
  valueFlags: [
    '-H',
    '--host',
    '-c',
    '--context',
    '--config',
    '-l',
    '--log-level',
    '--tlscacert',
    '--tlscert',
    '--tlskey',
  ],
  nested: {
    container: DOCKER_OBJECT,
    image: DOCKER_OBJECT,
    network: DOCKER_OBJECT,
    volume: { ...DOCKER_OBJECT, destructive: ['rm', 'remove', 'prune'] },
    system: { read: ['df', 'info', 'events'], destructive: ['prune', 'reset'] },
    compose: COMPOSE,
    // Swarm configs: `docker config rm` is no read.
    config: { read: ['ls', 'inspect'], bareIsRead: true },
  },
};

/** Tools judged by their subcommand. */
export const SUBCOMMAND_TOOLS: Readonly<Record<string, SubcommandRule>> = {
  systemctl: {
    read: [
      'status',
      'show',
      'cat',
      'list-units',
      'list-unit-files',
      'list-sockets',
      'list-timers',
      'list-jobs',
      'list-dependencies',
      'list-machines',
      'is-active',
      'is-enabled',
      'is-failed',
      'is-system-running',
      'get-default',
      'help',
    ],
    bareIsRead: true,
    named: named(ENABLEMENT, [
      'enable',
      'disable',
      'mask',
      'unmask',
      'reenable',
      'preset',
      'preset-all',
      'set-default',
      'link',
      'revert',
      'edit',
      'set-property',
      'daemon-reload',
      'daemon-reexec',
      'isolate',
    ]),
    valueFlags: [
      '-H',
      '--host',
      '-M',
      '--machine',
      '-t',
      '--type',
      '-p',
      '--property',
      '--state',
      '-n',
      '--lines',
      '-o',
      '--output',
      '-s',
      '--signal',
      '-P',
      '--kill-whom',
      '--kill-who',
      '--kill-value',
      '--root',
      '--image',
      '--image-policy',
      '--job-mode',
      '--what',
      '--timestamp',
      '--preset-mode',
      '--boot-loader-entry',
      '--boot-loader-menu',
      '--reboot-argument',
      '--when',
      '--drop-in',
      '--message',
      '--legend',
      '--check-inhibitors',
    ],
  },
  service: { read: [], bareIsRead: false, named: {} },
  'apt-get': {
    read: ['check', 'changelog', 'help'],
    mutatingGlobal: APT_OPTIONS,
    named: named(PACKAGE, APT_PACKAGE),
    valueFlags: ['-o', '--option', '-c', '--config-file', '-t', '--target-release'],
  },
  apt: {
    read: ['list', 'search', 'show', 'showsrc', 'policy', 'depends', 'rdepends', 'changelog', 'help'],
    mutatingGlobal: APT_OPTIONS,
    named: named(PACKAGE, APT_PACKAGE),
    valueFlags: ['-o', '--option', '-c', '--config-file', '-t', '--target-release'],
  },
  aptitude: {
    read: ['search', 'show', 'why', 'why-not', 'versions'],
    named: named(PACKAGE, [...APT_PACKAGE, 'safe-upgrade', 'hold', 'unhold']),
  },
  yum: {
    read: ['list', 'info', 'search', 'provides', 'repolist', 'check-update', 'deplist', 'repoquery'],
    named: named(PACKAGE, [
      'install',
      'remove',
      'erase',
      'update',
      'upgrade',
      'downgrade',
      'reinstall',
      'groupinstall',
      'autoremove',
      'distro-sync',
      'localinstall',
    ]),
  },
  dnf: {
    read: ['list', 'info', 'search', 'provides', 'repolist', 'check-update', 'deplist', 'repoquery'],
    named: named(PACKAGE, [
      'install',
      'remove',
      'erase',
      'update',
      'upgrade',
      'downgrade',
      'reinstall',
      'groupinstall',
      'autoremove',
      'distro-sync',
      'swap',
    ]),
  },
  zypper: {
    read: ['search', 'se', 'info', 'if', 'list-updates', 'lu', 'repos', 'lr', 'packages', 'pa', 'patches'],
    named: named(PACKAGE, ['install', 'in', 'remove', 'rm', 'update', 'up', 'dist-upgrade', 'dup', 'patch']),
  },
  apk: {
    read: ['info', 'search', 'list', 'policy', 'stats'],
    named: named(PACKAGE, ['add', 'del', 'upgrade', 'update', 'fix']),
  },
  snap: {
    read: ['list', 'info', 'find', 'version', 'services', 'changes'],
    named: named(PACKAGE, ['install', 'remove', 'refresh', 'revert']),
  },
  flatpak: { read: ['list', 'info', 'search'], named: named(PACKAGE, ['install', 'uninstall', 'update']) },
  pip: { read: ['list', 'show', 'freeze', 'check'], named: named(PACKAGE, ['install', 'uninstall']) },
  pip3: { read: ['list', 'show', 'freeze', 'check'], named: named(PACKAGE, ['install', 'uninstall']) },
  'apt-cache': {
    read: [
      'policy',
      'show',
      'showsrc',
      'search',
      'depends',
      'rdepends',
      'showpkg',
      'stats',
      'dump',
      'dumpavail',
      'unmet',
      'pkgnames',
      'madison',
      'dotty',
      'xvcg',
    ],
    named: { gencaches: 'package cache mutation' },
    valueFlags: ['-o', '--option', '-c', '--config-file', '-p', '--pkg-cache', '-s', '--src-cache'],
    mutatingGlobal: {
      ...APT_OPTIONS,
      '-p': 'writes a package cache file',
      '--pkg-cache': 'writes a package cache file',
      '-s': 'writes a source cache file',
      '--src-cache': 'writes a source cache file',
    },
  },
  ip: {
    read: [],
    // Any prefix of -batch (`-b`, `-ba` …) runs the commands in a file and ignores the rest.
    mutatingGlobal: { '-batch': 'runs the commands in a batch file' },
    valueFlags: ['-n', '-netns', '-f', '-family', '-b', '-batch', '-rc', '-rcvbuf'],
    nested: Object.fromEntries(
      [
        'addr',
        'address',
        'a',
        'link',
        'l',
        'route',
        'r',
        'ro',
        'neigh',
        'neighbour',
        'n',
        'rule',
        'ru',
        'maddr',
        'm',
        'tunnel',
        'tun',
        'netns',
        'tuntap',
        'xfrm',
        'mroute',
        'ntable',
        'token',
        'monitor',
        'mon',
        'vrf',
        'nexthop',
        'stats',
      ].map((o) => [o, IP_OBJECT]),
    ),
  },
  zpool: {
    read: ['status', 'list', 'iostat', 'get', 'history', 'events'],
    destructive: ['destroy', 'labelclear', 'create'],
    mutatingFlags: {
      events: { '-c': 'clears the event log' },
      status: { '-c': 'runs scripts' },
      iostat: { '-c': 'runs scripts' },
    },
  },
  zfs: { read: ['list', 'get', 'holds', 'userspace', 'groupspace', 'version'], destructive: ['destroy', 'rollback'] },
  // A rollback or a deleted snapshot loses data for good, as `zfs rollback` does; `--force` deletes
  // an unlinked disk's volume, and a forced restore overwrites the guest that is there.
  qm: {
    read: ['list', 'status', 'config', 'pending', 'showcmd', 'listsnapshot', 'help'],
    destructive: ['destroy', 'rollback', 'delsnapshot'],
    destructiveFlags: { unlink: FORCE },
    nested: { disk: { read: [], destructiveFlags: { unlink: FORCE } } },
  },
  pct: {
    read: ['list', 'status', 'config', 'pending', 'listsnapshot', 'df', 'help'],
    destructive: ['destroy', 'rollback', 'delsnapshot'],
    destructiveFlags: { restore: FORCE },
  },
  pvesh: { read: ['get', 'ls', 'usage', 'help'], destructive: ['delete'] },
  pvecm: { read: ['status', 'nodes', 'help'], destructive: ['delnode'] },
  // ceph: the status views read; pools, OSDs and filesystems removed are data lost.
  ceph: {
    read: ['status', 'health', 'df', 'versions', 'version', 'quorum_status', 'features', 'time-sync-status'],
    bareReadFlags: ['-s', '--status', '-w', '--watch', '-v', '--version'],
    valueFlags: ['-c', '--conf', '--id', '--user', '-n', '--name', '--cluster', '-k', '--keyring', '-f', '--format'],
    mutatingGlobal: {
      '-o': 'writes its output to a file',
      '--out-file': 'writes its output to a file',
      '-i': 'sends a file as input',
      '--in-file': 'sends a file as input',
      '--admin-daemon': 'sends a command to a daemon socket',
    },
    nested: {
      osd: {
        read: ['tree', 'df', 'stat', 'ls', 'dump', 'perf', 'utilization', 'find', 'metadata', 'versions', 'status'],
        destructive: ['purge', 'destroy', 'lost'],
        nested: { pool: { read: ['ls', 'stats', 'get', 'autoscale-status'], destructive: ['delete', 'rm'] } },
      },
      pg: { read: ['stat', 'dump', 'ls', 'dump_stuck', 'query'] },
      mon: { read: ['stat', 'dump'] },
      mgr: { read: ['stat', 'dump', 'services'] },
      mds: { read: ['stat'], destructive: ['rmfailed'] },
      fs: {
        read: ['ls', 'status', 'dump', 'get'],
        destructive: ['rm'],
        nested: { volume: { read: ['ls', 'info'], destructive: ['rm'] } },
      },
    },
  },
  pvesm: { read: ['status', 'list', 'path', 'help'], destructive: ['free', 'prune-backups'] },
  'ha-manager': { read: ['status', 'config', 'help'] },
  cryptsetup: {
    read: ['status', 'luksDump', 'isLuks', 'tcryptDump', 'luksUUID'],
    destructive: ['luksFormat', 'erase', 'luksErase'],
    mutatingFlags: { luksUUID: { '--uuid': 'sets the UUID' } },
  },
  docker: DOCKER,
  podman: DOCKER,
  'docker-compose': COMPOSE,
  kubectl: {
    read: ['get', 'describe', 'logs', 'top', 'version', 'explain', 'api-resources', 'api-versions', 'cluster-info'],
    // kubectl's global options that take a value (pflag reads `--as x` as well as `--as=x`).
    valueFlags: [
      '-n',
      '--namespace',
      '--context',
      '--kubeconfig',
      '-s',
      '--server',
      '--as',
      '--as-group',
      '--as-uid',
      '--cache-dir',
      '--certificate-authority',
      '--client-certificate',
      '--client-key',
      '--cluster',
      '--password',
      '--profile',
      '--profile-output',
      '--request-timeout',
      '--tls-server-name',
      '--token',
      '--user',
      '--username',
      '-v',
      '--v',
      '--vmodule',
      '--log-file',
      '--log-dir',
      '-l',
      '--selector',
    ],
    mutatingGlobal: { '--kubeconfig': 'reads a kubeconfig, which can name credential plugins that run' },
    mutatingFlags: { 'cluster-info': { '--output-directory': 'writes files' } },
  },
  git: {
    read: [
      'status',
      'log',
      'diff',
      'show',
      'rev-parse',
      'ls-files',
      'ls-remote',
      'describe',
      'blame',
      'grep',
      'shortlog',
    ],
    valueFlags: ['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--attr-source'],
    mutatingFlags: {
      log: { '--output': 'writes a file', '--ext-diff': EXT_DIFF },
      show: { '--output': 'writes a file', '--ext-diff': EXT_DIFF },
      diff: { '--output': 'writes a file', '--ext-diff': EXT_DIFF },
      grep: { '-O': 'runs a pager program on the files', '--open-files-in-pager': 'runs a pager program on the files' },
      'ls-remote': { '--upload-pack': 'runs a program' },
    },
  },
  timedatectl: { read: ['status', 'show', 'list-timezones', 'timesync-status', 'show-timesync'], bareIsRead: true },
  hostnamectl: { read: ['status'], bareIsRead: true },
  networkctl: { read: ['list', 'status', 'lldp', 'label'], bareIsRead: true },
  loginctl: {
    read: [
      'list-sessions',
      'list-users',
      'list-seats',
      'show-session',
      'show-user',
      'session-status',
      'user-status',
      'seat-status',
    ],
    bareIsRead: true,
  },
  nft: {
    read: ['list', 'describe'],
    valueFlags: ['-f', '--file', '-I', '--includepath'],
    mutatingGlobal: {
      '-f': 'loads rules from a file',
      '--file': 'loads rules from a file',
      '-i': 'reads commands from stdin',
      '--interactive': 'reads commands from stdin',
    },
  },
  ufw: { read: ['status', 'show', 'version'] },
};
