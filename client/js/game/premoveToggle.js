// The premove queue's setting on the game page: a checkbox for the seated player, under the
// other controls (premoves.js keeps the setting; this only shows and changes it).

export class PremoveToggleView {
  constructor(root, ctrl) {
    this.ctrl = ctrl;
    this.label = document.createElement('label');
    this.label.className = 'premove-queue';
    this.label.title = 'Set up several moves ahead during the opponent\'s turn; each is played in turn while it stays legal';
    this.box = document.createElement('input');
    this.box.type = 'checkbox';
    this.box.id = 'premove-queue';
    this.label.append(this.box, ' Queue premoves');
    this.box.addEventListener('change', () => ctrl.setPremoveQueue(this.box.checked));
    (root.querySelector('.panel') || root).appendChild(this.label);
  }

  render() {
    const ctrl = this.ctrl;
    // No premoves in correspondence: nothing to queue.
    this.label.hidden = !ctrl.seat || ctrl.game?.status === 'ended' || ctrl.archived || ctrl.correspondence;
    this.box.checked = ctrl.premoves.queueing;
  }
}
