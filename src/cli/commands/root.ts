import { commandTypo } from "../commandTypo.js";
import { addCommonOptions, type CommonOptions } from "../options.js";
import type { Register } from "./context.js";
import { loadTask, openTerminalUi } from "./loaders.js";

interface RootOptions extends CommonOptions {
  print?: boolean;
  continue?: boolean;
  resume?: string | true;
}

/**
 * `cairn [message]`: the terminal UI, opened on a first message when one is given; `-p` runs
 * the message headless and prints the answer (piped input is appended, or is the message);
 * `-c` continues this folder's last session, `-r [id]` a chosen one.
 */
export const register: Register = (program) => {
  addCommonOptions(program)
    .argument("[message...]", "a first message for the agent")
    .option("-p, --print", "run the message headless (one tool loop, like cairn do) and print the answer")
    .option("-c, --continue", "continue the last session of this folder")
    .option("-r, --resume [id]", "continue a session: the one named, or pick from this folder's")
    .action(async (message: string[], options: RootOptions) => {
      // `-p` asks the model on purpose; a bare near miss of a command is a typo, said for free.
      const meant = options.print
        ? undefined
        : commandTypo(
            message,
            program.commands.map((c) => c.name()),
          );
      if (meant) {
        process.stderr.write(
          `error: unknown command '${message[0]}' (did you mean \`cairn ${meant}\`?)\nTo send it to the agent as a message, add words or use cairn -p.\n`,
        );
        process.exitCode = 2;
        return;
      }
      if (options.print) {
        const { taskCommand, taskWithInput } = await loadTask();
        process.exitCode = await taskCommand("do", await taskWithInput(message), options);
        return;
      }
      // Without a terminal there is nobody to talk to: what is piped in is the message (`echo x |
      // cairn > out.txt`), and with nothing piped either the help says what else there is.
      if (!process.stdout.isTTY && message.length === 0 && !options.continue && !options.resume) {
        const { pipedMessage } = await import("../stdin.js");
        if (!(await pipedMessage())) {
          program.outputHelp();
          return;
        }
      }
      process.exitCode = await openTerminalUi(options, {
        ...(message.length ? { firstMessage: message.join(" ") } : {}),
        ...(options.continue ? { resume: "last" as const } : {}),
        ...(options.resume ? { resume: options.resume === true ? ("pick" as const) : options.resume } : {}),
      });
    });
};
