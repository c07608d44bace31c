const GIT_VALUE_OPTIONS = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"]);
/** Options, and subcommands of the newer `git config set|get|…` form, that write or only read. */
const GIT_CONFIG_WRITES = new Set(
  "--add --unset --unset-all --replace-all --rename-section --remove-section --edit -e set unset edit".split(
    " ",
  ),
);
const GIT_CONFIG_READS = new Set(
  "--get --get-all --get-regexp --get-urlmatch --get-color --get-colorbool --list -l get list".split(" "),
);
const GIT_CONFIG_VALUE_OPTIONS = new Set(["--file", "-f", "--blob", "--type", "--default", "--comment"]);

function changesGitConfig(args: string[]): boolean {
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (GIT_CONFIG_WRITES.has(arg) && (arg.startsWith("-") || positionals.length === 0)) return true;
    if (GIT_CONFIG_READS.has(arg) && (arg.startsWith("-") || positionals.length === 0)) return false;
    if (GIT_CONFIG_VALUE_OPTIONS.has(arg)) i++;
    else if (!arg.startsWith("-")) positionals.push(arg);
  }
  return positionals.length >= 2;
}

/**
 * What a git command (`git` first) does beyond the repository it runs in, one phrase per harm:
 * rewriting or deleting what others pull from a remote, changing configuration every
 * repository uses.
 */
export function gitHarms(argv: string[]): string[] {
  const harms: string[] = [];
  let i = 1;
  while (i < argv.length && argv[i]!.startsWith("-")) i += GIT_VALUE_OPTIONS.has(argv[i]!) ? 2 : 1;
  const subcommand = argv[i];
  const args = argv.slice(i + 1);
  if (subcommand === "push") {
    const force =
      args.find((a) => a === "--force" || a === "--mirror" || a.startsWith("--force-with-lease")) ??
      args.find((a) => /^-[a-zA-Z]*f/.test(a) || /^\+./.test(a));
    if (force) harms.push(`overwrites history on the remote (${force})`);
    const deletion = args.find((a) => a === "--delete" || /^-[a-zA-Z]*d/.test(a) || /^:./.test(a));
    if (deletion) harms.push(`deletes a branch or tag on the remote (${deletion})`);
  }
  if (subcommand === "config") {
    const level = args.find((a) => a === "--global" || a === "--system");
    if (level && changesGitConfig(args)) {
      harms.push(`changes the ${level.slice(2)} git configuration, which every repository uses`);
    }
  }
  return harms;
}
