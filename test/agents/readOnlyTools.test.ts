// The explorer behind explore_codebase is offered what only reads. Its list is taken from the
// tools' own permissions, so a read-only workspace tool reaches it without a second list to keep.
import { describe, expect, it } from "vitest";
import { EXPLORE, READ_ONLY_TOOLS } from "../../src/agents/builtins.js";
import { WORKSPACE_TOOLS } from "../../src/tools/workspaceTools.js";

describe("the explorer's tools", () => {
  it("are the workspace's reading, searching and git-viewing tools", () => {
    expect(EXPLORE.tools).toEqual(READ_ONLY_TOOLS);
    expect([...READ_ONLY_TOOLS].sort()).toEqual(
      [
        "file_tree",
        "git_diff",
        "git_log",
        "git_status",
        "grep",
        "list_files",
        "read_file",
        "read_ini",
        "read_json",
        "read_yaml",
        "search_files",
        "workspace_info",
      ].sort(),
    );
  });

  it("include every workspace tool whose permission is read, and none that writes or runs", () => {
    for (const tool of WORKSPACE_TOOLS)
      expect(READ_ONLY_TOOLS.includes(tool.name), `${tool.name} (${tool.permission})`).toBe(
        tool.permission === "read",
      );
    const writers = WORKSPACE_TOOLS.filter((tool) => tool.permission !== "read").map((tool) => tool.name);
    expect(writers).toEqual(expect.arrayContaining(["write_file", "edit_file", "run_command", "git_commit"]));
  });
});
