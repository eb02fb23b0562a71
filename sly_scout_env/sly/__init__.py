"""Sly: rules kernels, observation encoder, PettingZoo env, text helpers and simulation."""
