/**
 * Environment assignments in front of a command (`X=1 cmd`, `env X=1 cmd`) change what it does:
 * only the locale and time zone (`LANG`, `LC_*`, `TZ`) are taken as harmless. Variables that name
 * code to load or run (`LD_PRELOAD`, `PATH`, `BASH_ENV`, `PYTHON*`, `NODE_OPTIONS`, `GIT_*`, pagers
 * and editors …) are destructive: they run arbitrary code, as unknown as a command word built at
 * run time. Any other assignment makes the command at least config_mutation.
 */
import type { Verdict } from './checks.js';

const HARMLESS = /^(LANG|LC_[A-Za-z_]+|TZ)$/;

const CODE: ReadonlyArray<readonly [RegExp, string]> = [
  [/^LD_/, 'tells the dynamic loader which code to load'],
  [/^PATH$/, 'chooses which programs the command names run'],
  [/^(BASH_ENV|ENV|PROMPT_COMMAND|PS4|SHELLOPTS|BASHOPTS|IFS)$|^BASH_FUNC_/, 'makes the shell run code'],
  [
    /^(PYTHON|PERL|RUBY|NODE_|LUA_|GCONV_PATH$|AWKPATH$|AWKLIBPATH$|JAVA_TOOL_OPTIONS$|_JAVA_OPTIONS$|JDK_JAVA_OPTIONS$|PHPRC$|PHP_INI_SCAN_DIR$|TCLLIBPATH$|DOTNET_STARTUP_HOOKS$)/,
    'makes an interpreter or library load code',
  ],
  [/^GIT_/, 'makes git run programs or read another configuration'],
  [
    /^(PAGER|MANPAGER|SYSTEMD_PAGER|SYSTEMD_PAGERSECURE|SYSTEMD_EDITOR|EDITOR|VISUAL|SUDO_EDITOR|SUDO_ASKPASS|SSH_ASKPASS|BROWSER|LESS|LESSOPEN|LESSCLOSE|LESSEDIT|LESSKEY|LESSKEYIN|LESSKEY_CONTENT|RIPGREP_CONFIG_PATH|KUBECONFIG|DOCKER_CONFIG|TAR_OPTIONS|POSIXLY_CORRECT)$/,
    'names a program, or options and configuration that can run one',
  ],
];

/** The variable an assignment word sets (`X=1` → `X`), or null when the word is not one. */
export function assignedName(word: string, loose = false): string | null {
  const eq = word.indexOf('=');
  if (eq <= 0) return null;
  const name = word.slice(0, eq);
  // `env` takes any NAME=VALUE, even names the shell would refuse (`BASH_FUNC_ls%%`).
  return loose || /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : null;
}

/**
 * The risk of setting `name` for a command; `alone` for an assignment with no command after it,
 * which sets a shell variable (harmless) unless it is one later commands read, like `PATH`.
 */
export function judgeAssignment(name: string, alone: boolean): Verdict | null {
  if (HARMLESS.test(name)) return null;
  const code = CODE.find(([re]) => re.test(name));
  if (code !== undefined) return { riskClass: 'destructive', reason: `destructive: setting ${name} ${code[1]}` };
  if (alone) return null;
  return { riskClass: 'config_mutation', reason: `setting ${name} for the command changes what it does` };
}
