import { describe, expect, it } from "vitest";
import { CHAT_COMMANDS, commandNames } from "../../src/ui/chatCommands.js";
import { findCommand } from "../../src/ui/tui/commands.js";

describe("slash command names", () => {
  it("answers /agent, the old name of /run, without listing it, and keeps it from custom commands", () => {
    const commands = [CHAT_COMMANDS.run, CHAT_COMMANDS.do];
    expect(findCommand(commands, "agent")?.name).toBe("run");
    expect(findCommand(commands, "run")?.name).toBe("run");
    expect(findCommand(commands, "plan")).toBeUndefined();
    expect(commandNames(commands)).toEqual(["run", "agent", "do"]);
  });
});
