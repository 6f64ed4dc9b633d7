export const e2eCommands = {};
