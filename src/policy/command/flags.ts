/**
 * The options of allow-listed commands that make them write, change state or run a program, with
 * the options that take a value (so `-Iseconds` is not read as `-s`). A command listed here is
 * read-only only when none of its options or operands says otherwise.
 */
import type { OptionSpec } from './options.js';

export interface CommandFlags extends OptionSpec {
  /** Options that change state, each with what it does. */
  mutating?: Readonly<Record<string, string>>;
  /** Long option prefixes that change state (ethtool's `--set-…`). */
  mutatingPrefixes?: readonly string[];
  /** Options whose value changes state when it matches (`smartctl -l scterc,70,70`). */
  mutatingValues?: Readonly<Record<string, RegExp>>;
  /** Options whose value is a file the command writes. */
  writes?: readonly string[];
  /** Options whose value is a program the command runs. */
  runs?: readonly string[];
  /** Most operands that only read; more change state, or name output files with `operandWrites`. */
  maxOperands?: number;
  operandWrites?: boolean;
  /** Operands starting with `+` are formats, not operands (`date +%s`). */
  plusIsFormat?: boolean;
}

const IPTABLES: CommandFlags = {
  shortValue: 't',
  mutating: {
    ...Object.fromEntries(
      [
        ['-A', '--append'],
        ['-D', '--delete'],
        ['-I', '--insert'],
        ['-R', '--replace'],
        ['-F', '--flush'],
        ['-Z', '--zero'],
        ['-N', '--new-chain'],
        ['-X', '--delete-chain'],
        ['-P', '--policy'],
        ['-E', '--rename-chain'],
      ].flatMap(([s, l]) => [
        [s!, `changes firewall rules (${l})`],
        [l!, 'changes firewall rules'],
      ]),
    ),
    '--modprobe': 'names a program iptables runs to load kernel modules',
  },
  longValue: ['--modprobe'],
  long: ['--list', '--list-rules', '--numeric', '--verbose', '--line-numbers', '--exact', '--table'],
};

// iptables-save and ip6tables-save read the same options.
const IPTABLES_SAVE: CommandFlags = {
  shortValue: 'tfM',
  longValue: ['--table', '--file', '--modprobe'],
  writes: ['-f', '--file'],
  mutating: {
    '-M': 'names a program it runs to load kernel modules',
    '--modprobe': 'names a program it runs to load kernel modules',
  },
};

const LESS: CommandFlags = {
  shortValue: 'bhjkoOpPtTxyz#D',
  longValue: ['--log-file', '--LOG-FILE', '--lesskey-file', '--lesskey-src', '--lesskey-content', '--tag'],
  writes: ['-o', '-O', '--log-file', '--LOG-FILE'],
  mutating: {
    '-k': 'reads a lesskey file, which can set commands and environment',
    '--lesskey-file': 'reads a lesskey file, which can set commands and environment',
    '--lesskey-src': 'reads a lesskey file, which can set commands and environment',
    '--lesskey-content': 'sets key bindings, which can run commands',
  },
};

/** Allow-listed commands whose options or operands matter. */
export const COMMAND_FLAGS: Readonly<Record<string, CommandFlags>> = {
  date: {
    shortValue: 'dfrs',
    shortOptional: 'I',
    longValue: ['--date', '--file', '--reference', '--set'],
    longOptional: ['--iso-8601', '--rfc-3339'],
    long: ['--debug', '--rfc-email', '--utc', '--universal', '--resolution'],
    mutating: { '-s': 'sets the system clock', '--set': 'sets the system clock' },
    maxOperands: 0,
    plusIsFormat: true,
  },
  dmesg: {
    shortValue: 'flnsF',
    longValue: ['--facility', '--level', '--console-level', '--buffer-size', '--file', '--since', '--until'],
    longOptional: ['--time-format', '--color'],
    mutating: Object.fromEntries(
      ['-c', '-C', '-n', '-D', '-E', '--clear', '--read-clear', '--console-level', '--console-off', '--console-on'].map(
        (f) => [f, 'changes the kernel log or console'],
      ),
    ),
  },
  journalctl: {
    shortValue: 'utpnoDSUMgcFiIb',
    longValue: [
      '--unit',
      '--user-unit',
      '--identifier',
      '--priority',
      '--facility',
      '--lines',
      '--output',
      '--output-fields',
      '--directory',
      '--file',
      '--root',
      '--image',
      '--since',
      '--until',
      '--machine',
      '--namespace',
      '--grep',
      '--cursor',
      '--after-cursor',
      '--cursor-file',
      '--field',
      '--boot',
      '--vacuum-size',
      '--vacuum-time',
      '--vacuum-files',
      '--interval',
      '--verify-key',
      '--case-sensitive',
    ],
    long: ['--no-pager', '--follow', '--reverse', '--list-boots', '--disk-usage', '--verify', '--system', '--user'],
    mutating: Object.fromEntries(
      [
        '--vacuum-size',
        '--vacuum-time',
        '--vacuum-files',
        '--rotate',
        '--flush',
        '--sync',
        '--relinquish-var',
        '--smart-relinquish-var',
        '--setup-keys',
        '--update-catalog',
      ].map((f) => [f, 'changes the journal']),
    ),
    writes: ['--cursor-file'],
  },
  sort: {
    shortValue: 'kotST',
    longValue: [
      '--key',
      '--output',
      '--field-separator',
      '--buffer-size',
      '--temporary-directory',
      '--compress-program',
      '--files0-from',
      '--parallel',
      '--random-source',
      '--sort',
      '--batch-size',
    ],
    long: ['--reverse', '--unique', '--numeric-sort', '--human-numeric-sort', '--version-sort', '--stable', '--check'],
    writes: ['-o', '--output'],
    runs: ['--compress-program'],
  },
  uniq: {
    shortValue: 'fsw',
    longValue: ['--skip-fields', '--skip-chars', '--check-chars'],
    longOptional: ['--all-repeated', '--group'],
    maxOperands: 1,
    operandWrites: true,
  },
  xxd: { shortValue: 'cglosn', maxOperands: 1, operandWrites: true },
  hostname: {
    shortValue: 'F',
    longValue: ['--file'],
    mutating: {
      '-F': 'sets the hostname',
      '--file': 'sets the hostname',
      '-b': 'sets the hostname',
      '--boot': 'sets the hostname',
    },
    maxOperands: 0,
  },
  mount: {
    shortValue: 'toOLUNT',
    longValue: ['--types', '--options', '--test-opts', '--label', '--uuid', '--source', '--target', '--fstab'],
    mutating: Object.fromEntries(
      [
        '-a',
        '--all',
        '-o',
        '--options',
        '-B',
        '--bind',
        '-M',
        '--move',
        '-R',
        '--rbind',
        '-L',
        '--label',
        '-U',
        '--uuid',
        '--source',
        '--target',
      ].map((f) => [f, 'mounts a filesystem']),
    ),
    maxOperands: 0,
  },
  hwclock: {
    longValue: ['--date', '--epoch', '--param-get', '--param-set', '--rtc', '--adjfile', '--delay'],
    mutating: Object.fromEntries(
      [
        '--set',
        '-w',
        '--systohc',
        '-s',
        '--hctosys',
        '--adjust',
        '-a',
        '--systz',
        '--param-set',
        '--setepoch',
        '--epoch',
      ].map((f) => [f, 'sets a clock']),
    ),
  },
  smartctl: {
    shortValue: 'dTbrnlvFPgstoSX',
    longValue: [
      '--device',
      '--tolerance',
      '--badsum',
      '--report',
      '--nocheck',
      '--log',
      '--vendorattribute',
      '--firmwarebug',
      '--presets',
      '--get',
      '--set',
      '--smart',
      '--test',
      '--offlineauto',
      '--saveauto',
    ],
    long: ['--all', '--xall', '--info', '--health', '--capabilities', '--attributes', '--abort'],
    mutating: Object.fromEntries(
      ['-t', '--test', '-s', '--set', '--smart', '-o', '--offlineauto', '-S', '--saveauto', '-X', '--abort'].map(
        (f) => [f, 'changes the drive'],
      ),
    ),
    mutatingValues: { '-l': /^(scterc|scttempint),/, '--log': /^(scterc|scttempint),/ },
  },
  iptables: IPTABLES,
  ip6tables: IPTABLES,
  ethtool: {
    mutating: Object.fromEntries(
      [
        ['-s', '--change'],
        ['-K', '--features'],
        ['-G', '--set-ring'],
        ['-A', '--pause'],
        ['-C', '--coalesce'],
        ['-E', '--change-eeprom'],
        ['-f', '--flash'],
        ['-p', '--identify'],
        ['-r', '--negotiate'],
        ['-L', '--set-channels'],
        ['-X', '--set-rxfh-indir'],
        ['-N', '--config-nfc'],
        ['-U', '--config-ntuple'],
        ['-W', '--set-dump'],
        ['-Q', '--per-queue'],
      ]
        .flatMap(([s, l]) => [s!, l!])
        .concat(['--offload', '--reset', '--config-ntuple'])
        .map((f) => [f, 'changes the network device']),
    ),
    mutatingPrefixes: ['--set-'],
  },
  rg: {
    shortValue: 'efgtTABCmjMrEd',
    longValue: [
      '--regexp',
      '--file',
      '--glob',
      '--iglob',
      '--type',
      '--type-not',
      '--type-add',
      '--type-clear',
      '--after-context',
      '--before-context',
      '--context',
      '--max-count',
      '--threads',
      '--max-columns',
      '--replace',
      '--encoding',
      '--max-depth',
      '--pre',
      '--pre-glob',
      '--hostname-bin',
      '--path-separator',
      '--colors',
      '--sort',
      '--sortr',
    ],
    runs: ['--pre', '--hostname-bin'],
    mutating: { '--pre-glob': 'chooses files for a preprocessor, which runs a program on them' },
  },
  less: LESS,
  zless: LESS,
  file: {
    shortValue: 'mfFeP',
    longValue: ['--magic-file', '--files-from', '--separator', '--exclude', '--parameter'],
    mutating: { '-C': 'compiles a magic file (writes it)', '--compile': 'compiles a magic file (writes it)' },
  },
  ss: {
    shortValue: 'fANFD',
    longValue: ['--family', '--query', '--net', '--filter', '--diag'],
    mutating: { '-K': 'kills sockets', '--kill': 'kills sockets' },
    writes: ['-D', '--diag'],
  },
  sar: { shortValue: 'fPInmqe', writes: ['-o'], mutating: { '-o': 'writes the activity file' } },
  arcstat: { shortValue: 'fs', writes: ['-o'] },
  lastlog: {
    shortValue: 'btuR',
    longValue: ['--before', '--time', '--user', '--root'],
    mutating: {
      '-C': 'clears login records',
      '--clear': 'clears login records',
      '-S': 'sets login records',
      '--set': 'sets login records',
    },
  },
  sensors: {
    shortValue: 'c',
    longValue: ['--config-file'],
    mutating: { '-s': 'sets chip limits', '--set': 'sets chip limits' },
  },
  blkid: {
    shortValue: 'cosntLU',
    mutating: { '-g': 'rewrites the blkid cache', '--garbage-collect': 'rewrites the blkid cache' },
  },
  dmidecode: {
    shortValue: 'dst',
    longValue: ['--dev-mem', '--string', '--type', '--from-dump', '--dump-bin', '--handle'],
    writes: ['--dump-bin'],
  },
  'iptables-save': IPTABLES_SAVE,
  'ip6tables-save': IPTABLES_SAVE,
};
