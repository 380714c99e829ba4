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
