"""optim.lr_scheduler: learning-rate schedules."""
