import { describe, expect, it } from "vitest";
import { type ApprovalAnswer, ApprovalPolicy, type ApprovalRequest } from "../../src/safety/approval.js";

const write: ApprovalRequest = { tool: "edit_file", permission: "write", summary: "edit_file a.ts" };
const exec: ApprovalRequest = { tool: "run_command", permission: "exec", summary: "run_command npm test" };
const read: ApprovalRequest = { tool: "read_file", permission: "read", summary: "read_file a.ts" };

function asking(answers: ApprovalAnswer[]) {
  const asked: string[] = [];
  const ask = async (request: ApprovalRequest) => {
    asked.push(request.summary);
    return answers.shift() ?? "deny";
  };
  return { ask, asked };
}

describe("approval policy", () => {
  it("never asks for reads", async () => {
    const { ask, asked } = asking([]);
    expect(await new ApprovalPolicy("ask", ask).check(read)).toEqual({ allowed: true });
    expect(asked).toEqual([]);
  });

  it("read-only refuses writes and commands without asking", async () => {
    const { ask, asked } = asking(["once"]);
    const policy = new ApprovalPolicy("read-only", ask);
    expect((await policy.check(write)).allowed).toBe(false);
    expect((await policy.check(exec)).allowed).toBe(false);
    expect(asked).toEqual([]);
  });

  it("auto-edit lets edits through and asks before commands", async () => {
    const { ask, asked } = asking(["deny"]);
    const policy = new ApprovalPolicy("auto-edit", ask);
    expect(await policy.check(write)).toEqual({ allowed: true });
    const denied = await policy.check(exec);
    expect(denied).toEqual({ allowed: false, reason: "The user declined: run_command npm test." });
    expect(asked).toEqual(["run_command npm test"]);
  });

  it("remembers 'always for this session' per tool", async () => {
    const { ask, asked } = asking(["session"]);
    const policy = new ApprovalPolicy("ask", ask);
    expect((await policy.check(exec)).allowed).toBe(true);
    expect((await policy.check(exec)).allowed).toBe(true);
    expect(asked).toHaveLength(1);
  });

  it("refuses instead of hanging when nobody can answer", async () => {
    const decision = await new ApprovalPolicy("ask").check(write);
    expect(decision.allowed).toBe(false);
    expect(!decision.allowed && decision.reason).toMatch(/headless.*--approval auto-edit or auto/);
  });
});
