import path from "node:path";
import type { Rule, RuleAction } from "../config/schema.js";
import { type CommandPart, splitCommandLine } from "../platform/shell/split.js";
import { wildcard } from "../platform/text.js";
import { isReadOnly, needsNetwork } from "./commandKinds.js";

interface CompiledRule {
  rule: Rule;
  tool: RegExp | undefined;
  /** The pattern's words; the first is compared by program name when it has no `/`. */
  words: RegExp[] | undefined;
  byName: boolean;
}

function compile(rule: Rule): CompiledRule {
  const words = rule.command === undefined ? undefined : (splitCommandLine(rule.command)?.[0]?.words ?? []);
  return {
    rule,
    tool: rule.tool === undefined ? undefined : wildcard(rule.tool),
    words: words?.map(wildcard),
    byName: words !== undefined && !words[0]?.includes("/"),
  };
}

function matches(compiled: CompiledRule, tool: string, part: CommandPart | undefined): boolean {
  if (compiled.tool && !compiled.tool.test(tool)) return false;
  if (!compiled.words) return true;
  if (!part || part.words.length < compiled.words.length || compiled.words.length === 0) return false;
  return compiled.words.every((word, i) => {
    const actual = part.words[i]!;
    return word.test(i === 0 && compiled.byName ? path.basename(actual) : actual);
  });
}

/** What the rules say about one tool call. */
export interface RuleVerdict {
  /** Undefined when no rule decides: the approval mode does. */
  action: RuleAction | undefined;
  /** The rule that decided, for messages. */
  rule?: Rule;
  /** The rules let every command of the line that needs the network have it. */
  network: boolean;
}

/** A rule as a person would read it in a message: `deny command "git push"`. */
export function describeRule(rule: Rule): string {
  const what = [
    rule.tool !== undefined ? `tool "${rule.tool}"` : "",
    rule.command !== undefined ? `command "${rule.command}"` : "",
  ];
  return `${rule.action} ${what.filter(Boolean).join(" ")}${rule.network ? " with network" : ""}`;
}

const SAFE_WORD = /^[\w./:=@%+,-]+$/;

/** A word as it must be written in a command pattern to stand for itself. */
function shellWord(word: string): string {
  return SAFE_WORD.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The rules of a session: the config's, then what the person allowed "always" since. */
export class RuleSet {
  /** Rules that come before the session's for one turn (a custom command's allowed tools). */
  private first: CompiledRule[] = [];
  private rules: CompiledRule[];

  constructor(rules: Rule[]) {
    this.rules = rules.map(compile);
  }

  add(rules: Rule[]): void {
    this.rules.push(...rules.map(compile));
  }

  /**
   * This set with `rules` before its own, for one turn: the session's rules, later, still win
   * where both match (a deny of the person's holds), and an "always" answered meanwhile is
   * added to the session's set, which the two share.
   */
  withFirst(rules: Rule[]): RuleSet {
    const set = new RuleSet([]);
    set.first = [...this.first, ...rules.map(compile)];
    set.rules = this.rules;
    return set;
  }

  private last(tool: string, part?: CommandPart): Rule | undefined {
    const found = (list: CompiledRule[]) => list.findLast((compiled) => matches(compiled, tool, part))?.rule;
    return found(this.rules) ?? found(this.first);
  }

  /**
   * For a command line, each of its commands is judged: one denied denies the line; the line is
   * allowed only when each command is allowed by a rule or only reads. `parts` is undefined for
   * a tool that runs no command, or a line that could not be parsed (only tool rules apply).
   */
  judge(tool: string, parts: CommandPart[] | undefined): RuleVerdict {
    if (!parts) {
      const rule = this.last(tool);
      return { action: rule?.action, ...(rule ? { rule } : {}), network: false };
    }
    const judged = parts.map((part) => ({ part, rule: this.last(tool, part) }));
    const networked = judged.filter(({ part }) => needsNetwork(part));
    const network =
      networked.length > 0 &&
      networked.every(({ rule }) => rule?.action === "allow" && rule.network === true);
    const deny = judged.find(({ rule }) => rule?.action === "deny")?.rule;
    if (deny) return { action: "deny", rule: deny, network: false };
    const ask = judged.find(({ rule }) => rule?.action === "ask")?.rule;
    if (ask) return { action: "ask", rule: ask, network };
    const allow = judged.find(({ rule }) => rule?.action === "allow")?.rule;
    const allAllowed = judged.every(({ part, rule }) => rule?.action === "allow" || isReadOnly(part));
    return allow && allAllowed ? { action: "allow", rule: allow, network } : { action: undefined, network };
  }
}

/**
 * The rules an "always" answer adds: one per command of the line that is not read-only
 * (`npm test && npm run lint` gives two), or one for the tool.
 */
export function grantsFor(tool: string, parts: CommandPart[] | undefined, network: boolean): Rule[] {
  if (!parts) return [{ tool, action: "allow" }];
  return parts
    .filter((part) => !isReadOnly(part))
    .map((part) => ({
      command: part.words.map(shellWord).join(" "),
      action: "allow" as const,
      ...(network && needsNetwork(part) ? { network: true } : {}),
    }));
}
