package acp

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"
)

// A session's settings as the protocol offers them: the mode (also
// session/set_mode), the model (also the unstable session/set_model) and
// the reasoning effort, each a select config option.
const (
	optMode     = "mode"
	optModel    = "model"
	optEffort   = "effort"
	optTerminal = "terminal" // terminals.go
)

// effortDefault is the effort option's value for the provider's default.
const effortDefault = "default"

// efforts are the effort option's values, least to most.
var efforts = []sdk.SessionConfigSelectOption{
	{Value: effortDefault, Name: "Default", Description: sdk.Ptr("The provider's own reasoning setting")},
	{Value: "low", Name: "Low"},
	{Value: "medium", Name: "Medium"},
	{Value: "high", Name: "High"},
	{Value: "xhigh", Name: "Extra high"},
	{Value: "max", Name: "Max"},
}

// start takes the settings of the session's layers.
func (s *session) start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mode, s.model, s.effort = s.core.Mode, s.core.Model, s.core.Effort
}

func (s *session) modeState() *sdk.SessionModeState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &sdk.SessionModeState{AvailableModes: Modes, CurrentModeId: sdk.SessionModeId(s.mode)}
}

// modelState is the session's models, or nil when it has none to offer.
func (s *session) modelState() *sdk.SessionModelState {
	if len(s.core.Models) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := &sdk.SessionModelState{CurrentModelId: sdk.ModelId(s.model), AvailableModels: []sdk.ModelInfo{}}
	for _, m := range s.core.Models {
		info := sdk.ModelInfo{ModelId: sdk.ModelId(m.ID), Name: m.Name}
		if m.Description != "" {
			info.Description = sdk.Ptr(m.Description)
		}
		st.AvailableModels = append(st.AvailableModels, info)
	}
	return st
}

// configOptions is the session's settings as config options.
func (s *session) configOptions() []sdk.SessionConfigOption {
	s.mu.Lock()
	mode, model, effort := s.mode, s.model, s.effort
	s.mu.Unlock()
	modes := make(sdk.SessionConfigSelectOptionsUngrouped, 0, len(Modes))
	for _, m := range Modes {
		modes = append(modes, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(m.Id), Name: m.Name, Description: m.Description})
	}
	out := []sdk.SessionConfigOption{selectOption(optMode, "Mode", sdk.SessionConfigOptionCategoryMode, mode, modes)}
	if len(s.core.Models) > 0 {
		models := make(sdk.SessionConfigSelectOptionsUngrouped, 0, len(s.core.Models))
		for _, m := range s.core.Models {
			models = append(models, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(m.ID), Name: m.Name})
		}
		out = append(out, selectOption(optModel, "Model", sdk.SessionConfigOptionCategoryModel, model, models))
	}
	if s.core.efforts() != nil {
		if effort == "" {
			effort = effortDefault
		}
		list := sdk.SessionConfigSelectOptionsUngrouped(efforts)
		out = append(out, selectOption(optEffort, "Reasoning effort", sdk.SessionConfigOptionCategoryThoughtLevel, effort, list))
	}
	if o, ok := s.terminalOption(); ok {
		out = append(out, o)
	}
	return out
}

func selectOption(id, name string, cat sdk.SessionConfigOptionCategory, current string, opts sdk.SessionConfigSelectOptionsUngrouped) sdk.SessionConfigOption {
	o := sdk.NewSessionConfigOptionSelect(sdk.SessionConfigValueId(current), sdk.SessionConfigSelectOptions{Ungrouped: &opts})
	o.Select.Id, o.Select.Name = sdk.SessionConfigId(id), name
	if cat != "" {
		o.Select.Category = sdk.Ptr(cat)
	}
	return o
}

// invalid is an invalid-params error saying err.
func invalid(err error) error {
	return sdk.NewInvalidParams(map[string]any{"error": err.Error()})
}

func (s *session) setMode(mode string) error {
	m := s.core.modes()
	if m == nil {
		return errors.New("this session's mode cannot be changed")
	}
	if err := m.SetMode(mode); err != nil {
		return invalid(err)
	}
	mode = m.Mode() // the canonical name of an alias
	s.mu.Lock()
	s.mode = mode
	s.mu.Unlock()
	return nil
}

func (s *session) setModel(id string) error {
	m := s.core.models()
	if m == nil {
		return errors.New("this session's model cannot be changed")
	}
	if err := m.SetModel(id); err != nil {
		return invalid(err)
	}
	s.mu.Lock()
	s.model = id
	s.mu.Unlock()
	return nil
}

func (s *session) setEffort(v string) error {
	set := s.core.efforts()
	if set == nil {
		return errors.New("this session's effort cannot be changed")
	}
	e := v
	if e == effortDefault {
		e = ""
	}
	if err := set.SetEffort(e); err != nil {
		return invalid(err)
	}
	s.mu.Lock()
	s.effort = e
	s.mu.Unlock()
	return nil
}

// SetSessionConfigOption sets the mode, the model, the effort or where
// commands run, and answers with every option as it now is.
func (a *agent) SetSessionConfigOption(ctx context.Context, p sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	v := p.ValueId
	if v == nil {
		return sdk.SetSessionConfigOptionResponse{}, invalid(errors.New("ply's options all take a value id"))
	}
	s, err := a.session(v.SessionId)
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	switch v.ConfigId {
	case optMode:
		err = s.setMode(string(v.Value))
	case optModel:
		err = s.setModel(string(v.Value))
	case optEffort:
		err = s.setEffort(string(v.Value))
	case optTerminal:
		err = s.setTerminal(string(v.Value))
	default:
		err = invalid(fmt.Errorf("no config option %q", v.ConfigId))
	}
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: s.configOptions()}, nil
}

// UnstableSetSessionModel switches the model (session/set_model).
func (a *agent) UnstableSetSessionModel(ctx context.Context, p sdk.UnstableSetSessionModelRequest) (sdk.UnstableSetSessionModelResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.UnstableSetSessionModelResponse{}, err
	}
	if err := s.setModel(string(p.ModelId)); err != nil {
		return sdk.UnstableSetSessionModelResponse{}, err
	}
	return sdk.UnstableSetSessionModelResponse{}, nil
}
