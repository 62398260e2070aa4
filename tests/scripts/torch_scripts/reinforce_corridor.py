"""REINFORCE with a value baseline (the PyTorch actor-critic example's structure) on a tiny
corridor environment written in numpy: Categorical sampling, log_prob, normalised returns,
smooth_l1_loss for the critic, torch.cat of per-step losses."""

# Kept as the code these scripts imitate writes it (old-style super(), str.format, unused
# loop variables, closures defined in loops):
# ruff: noqa: B007

from collections import namedtuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical

SavedAction = namedtuple("SavedAction", ["log_prob", "value"])
eps = np.finfo(np.float32).eps.item()


class Corridor:
    """Start in the middle of a corridor of 7 cells; reward +1 at the right end, -1 at the left."""

    def __init__(self, n=7, max_steps=20, seed=0):
        self.n, self.max_steps = n, max_steps
        self.rs = np.random.RandomState(seed)

    def reset(self):
        self.pos, self.t = self.n // 2, 0
        return self._obs()

    def _obs(self):
        o = np.zeros(self.n, dtype=np.float32)
        o[self.pos] = 1.0
        return o

    def step(self, action):
        if self.rs.rand() < 0.1:  # slippery
            action = 1 - action
        self.pos += 1 if action == 1 else -1
        self.t += 1
        if self.pos == self.n - 1:
            return self._obs(), 1.0, True
        if self.pos == 0:
            return self._obs(), -1.0, True
        return self._obs(), -0.01, self.t >= self.max_steps


class Policy(nn.Module):
    def __init__(self, n_obs=7, n_actions=2):
        super().__init__()
        self.affine1 = nn.Linear(n_obs, 32)
        self.action_head = nn.Linear(32, n_actions)
        self.value_head = nn.Linear(32, 1)
        self.saved_actions = []
        self.rewards = []

    def forward(self, x):
        x = F.relu(self.affine1(x))
        return F.softmax(self.action_head(x), dim=-1), self.value_head(x)


torch.manual_seed(0)
env = Corridor()
model = Policy()
optimizer = optim.Adam(model.parameters(), lr=2e-2)
gamma = 0.95


def select_action(state):
    state = torch.from_numpy(state).float()
    probs, state_value = model(state)
    m = Categorical(probs)
    action = m.sample()
    model.saved_actions.append(SavedAction(m.log_prob(action), state_value))
    return action.item()


def finish_episode():
    R = 0
    policy_losses, value_losses, returns = [], [], []
    for r in model.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    if len(returns) > 1:
        returns = (returns - returns.mean()) / (returns.std() + eps)
    for (log_prob, value), R in zip(model.saved_actions, returns):
        advantage = R - value.item()
        policy_losses.append(-log_prob * advantage)
        value_losses.append(F.smooth_l1_loss(value, torch.tensor([R])))
    optimizer.zero_grad()
    loss = torch.stack(policy_losses).sum() + torch.stack(value_losses).sum()
    loss.backward()
    optimizer.step()
    del model.rewards[:]
    del model.saved_actions[:]


running_reward = -1.0
for i_episode in range(120):
    state, ep_reward = env.reset(), 0.0
    for t in range(1, 100):
        action = select_action(state)
        state, reward, done = env.step(action)
        model.rewards.append(reward)
        ep_reward += reward
        if done:
            break
    running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
    finish_episode()
    if i_episode % 20 == 0:
        print(
            f"Episode {i_episode}\tLast reward: {ep_reward:.2f}"
            f"\tAverage reward: {running_reward:.2f}"
        )

# greedy evaluation
wins = 0
with torch.no_grad():
    for _ in range(50):
        state, done = env.reset(), False
        while not done:
            probs, _ = model(torch.from_numpy(state).float())
            state, reward, done = env.step(int(torch.argmax(probs)))
        wins += reward > 0
dist = Categorical(logits=torch.tensor([0.0, 1.0]))
print(
    "entropy", round(dist.entropy().item(), 4), "probs", [round(p, 4) for p in dist.probs.tolist()]
)
print(f"FINAL win_rate {wins / 50:.2f}")
