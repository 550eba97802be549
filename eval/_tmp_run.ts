import { evalOpenSarShip, printOpenSarShip } from './shipChips.ts';
printOpenSarShip(await evalOpenSarShip());
