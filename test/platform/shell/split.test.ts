import { describe, expect, it } from "vitest";
import { splitCommandLine } from "../../../src/platform/shell/split.js";

function words(command: string): string[][] {
  return (splitCommandLine(command) ?? []).map((part) => part.words);
}

describe("splitCommandLine", () => {
  it.each([
    ["npm test", [["npm", "test"]]],
    [
      "cd src && npm test 2>&1 | tail -20",
      [
        ["cd", "src"],
        ["npm", "test"],
        ["tail", "-20"],
      ],
    ],
    ["sudo -u ci timeout 60 env CI=1 npm test", [["npm", "test"]]],
    [
      'bash -c "git push --force"',
      [
        ["bash", "-c", "git push --force"],
        ["git", "push", "--force"],
      ],
    ],
    [
      "echo $(git push) `rm x`",
      [
        ["git", "push"],
        ["rm", "x"],
        ["echo", "$(…)", "$(…)"],
      ],
    ],
    ["f() { rm -rf build; }; f", [["rm", "-rf", "build"], ["f"]]],
    ["grep 'a b' \"c d\"", [["grep", "a b", "c d"]]],
  ])("%s", (command, expected) => {
    expect(words(command)).toEqual(expected);
  });

  it("marks commands whose output goes into a file, not to /dev/null or another descriptor", () => {
    const parts = splitCommandLine("ls > files.txt; { cat a; cat b; } >> all.txt; ls 2>/dev/null; ls 2>&1");
    expect(parts?.map((part) => part.writesFile)).toEqual([true, true, true, false, false]);
  });

  it("gives up on what it cannot parse", () => {
    expect(splitCommandLine("echo 'unterminated")).toBeUndefined();
    expect(splitCommandLine("case $x in a) rm -rf /;; esac")).toBeUndefined();
  });
});
